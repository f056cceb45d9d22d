/**
 * The machine's load, as the sample scripts record it beside their runs.
 *
 * @module
 */

/** The machine's 1-minute load average, or null where the system does not tell. */
export function load1(): number | null {
  const l = Deno.loadavg()[0];
  return l === undefined || l === 0 ? null : l;
}
