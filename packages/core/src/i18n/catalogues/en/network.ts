/** The network namespace in English: the admin panel's upstreams, catalogue, gateways and policy screens. */
export default {} as const;
