/**
 * The zod pieces every quality statistic validates its input with, and the
 * one conversion of zod's issues into a RangeError that names every problem
 * at once (`cohenKappa: pairs[3][1]: expected string, received number`).
 *
 * @module
 */
import { z } from "zod";

/** A two-sided confidence level in (0, 1). */
export const Level = z.number().gt(0).lt(1);
/** A bootstrap's resample count; 0 skips the interval. */
export const Resamples = z.number().int().min(0).max(1_000_000);
/** A PRNG seed (mulberry32 reads it as an unsigned 32-bit integer). */
export const Seed = z.number().int();
/** A count: a non-negative integer. */
export const Count = z.number().int().min(0);

function where(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
}

/**
 * `schema.parse(value)`, but a failure is a RangeError that starts with the
 * function's name and lists every issue at its path under the argument's
 * name: `cohenKappa: pairs[3][1]: expected string, received number`.
 */
export function parseOr<T extends z.ZodType>(schema: T, value: unknown, fn: string, arg = ""): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => {
    const at = (arg + where(i.path)).replace(/^\./, "");
    return at ? `${at}: ${i.message}` : i.message;
  });
  throw new RangeError(`${fn}: ${problems.join("; ")}`);
}
