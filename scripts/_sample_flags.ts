/**
 * The flag the three sample scripts (`samples`, `samples-production`, `samples-engine`) share.
 *
 * @module
 */

/** `--out DIR`: where the sample runs go, `data/runs` by default (relative paths: from the repository). */
export const SAMPLES_OUT_FLAG = {
  type: "string",
  arg: "DIR",
  default: "data/runs",
  description: "where the runs go (relative paths: from the repository)",
} as const;
