import { mulberry32 } from "../lib/prng.ts";

/** The seeded uniform [0, 1) generator of generated test and bench logs, so every seed's data is reproducible. */
export const seededUniform: (seed: number) => () => number = mulberry32;
