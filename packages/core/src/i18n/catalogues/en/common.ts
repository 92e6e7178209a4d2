/** The common namespace in English: the frame every screen shares (picker, loading, page titles' brand). */
export default {
  language: 'Language',
  loading: 'Loading...',
} as const;
