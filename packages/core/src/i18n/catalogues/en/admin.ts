/** The admin namespace in English: the spec's own words. */
export default {} as const;
