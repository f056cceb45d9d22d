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
 * Validates `value` against `schema`; throws an {@linkcode InputError} that
 * lists every problem with the file and field.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, file: string, what: string): z.infer<S> {
  const r = schema.safeParse(value);
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
  return parseWith(schema, value, file, what);
}
