/** Contracts of issue 18: metrics. */
export {};
