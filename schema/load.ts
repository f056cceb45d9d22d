import type { z } from "zod";
import { InputError } from "./errors.ts";
import { readInputText } from "./read_input.ts";

/**
 * Renders every zod issue as `file: field.path: message`, all at once.
 */
export function describeIssues(file: string, error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const path = i.path.length ? i.path.map(String).join(".") : "(root)";
    return `${file}: ${path}: ${i.message}`;
  });
}

/**
 * A JSON text shorter than this (in characters, or in bytes where the bytes are at hand) is validated without zod's
 * compiled fast path ({@linkcode oneShot}): for one small value, compiling a parser per object schema costs more than
 * it saves.
 */
export const ONE_SHOT_MAX_CHARS = 256 * 1024;

/**
 * zod's parse options for a value parsed once (a setting's defaults, a small input file, run.json): without the fast
 * path zod compiles per object schema on first use (`new Function`), which the runner's start-up paid for each of its
 * inputs. The result is the same either way.
 */
export function oneShot(): { jitless: true } {
  // A new object each time: zod writes into the options it is given.
  return { jitless: true };
}

/**
 * Validates `value` against `schema`; throws an {@linkcode InputError} that
 * lists every problem with the file and field. `once`: the value is small and parsed once, so it is validated without
 * zod's compiled fast path ({@linkcode oneShot}).
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  what: string,
  options: { once?: boolean } = {},
): z.infer<S> {
  const r = schema.safeParse(value, options.once ? oneShot() : undefined);
  if (!r.success) throw new InputError(`${file}: invalid ${what}`, describeIssues(file, r.error));
  return r.data;
}

/** Reads a JSON file and validates it; errors name the file and field. */
export async function loadJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): Promise<z.infer<S>> {
  // A regular file of at most 64 MiB: a FIFO or a device is refused before it is opened.
  const text = await readInputText(file, what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: ${what} is not valid JSON: ${(e as Error).message}`, [], { cause: e });
  }
  return parseWith(schema, value, file, what, { once: text.length < ONE_SHOT_MAX_CHARS });
}
