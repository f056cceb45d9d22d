/**
 * Reading a peer tool's file as text, with its sha256, and turning parse and shape errors into an
 * {@linkcode InputError} that names the file and the record, line or key.
 *
 * @module
 */
import { load, YAMLException } from "js-yaml";
import type { z } from "zod";
import { InputError } from "../../schema/errors.ts";

/** A source file's text as read, its path as given and the sha256 of its bytes. */
export interface SourceText {
  path: string;
  text: string;
  sha256: string;
}

/** Hex sha256 of bytes. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads a file as UTF-8 text with its sha256; an unreadable file is an InputError naming it. */
export async function readSourceText(path: string): Promise<SourceText> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    throw new InputError(`${path}: cannot read: ${(e as Error).message}`, [], { cause: e });
  }
  return { path, text: new TextDecoder().decode(bytes), sha256: await sha256Hex(bytes) };
}

/** A source made from text in memory (tests, exporters); the sha256 is of its UTF-8 bytes. */
export async function sourceFromText(path: string, text: string): Promise<SourceText> {
  return { path, text, sha256: await sha256Hex(new TextEncoder().encode(text)) };
}

/** Parses JSON; a syntax error (a cut file) is an InputError naming the file and where the text breaks. */
export function parseJsonText(src: SourceText, what: string): unknown {
  try {
    return JSON.parse(src.text);
  } catch (e) {
    throw new InputError(`${src.path}: ${what} is not valid JSON (cut or damaged?): ${(e as Error).message}`, [], {
      cause: e,
    });
  }
}

/** Parses YAML (js-yaml, one document); a syntax error is an InputError naming the file and line. */
export function parseYamlText(src: SourceText, what: string): unknown {
  try {
    return load(src.text);
  } catch (e) {
    if (e instanceof YAMLException) {
      const line = e.mark ? ` at line ${e.mark.line + 1}, column ${e.mark.column + 1}` : "";
      throw new InputError(`${src.path}: ${what} is not valid YAML${line}: ${e.reason}`, [], { cause: e });
    }
    throw e;
  }
}

/** A zod path as a reader writes it: `benchmarks[0].requests.successful[3].start_time`. */
export function keyPath(path: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || "(root)";
}

/**
 * Validates `value` against `schema`; every problem at once, each naming the file and the key path under `prefix`.
 */
export function shaped<S extends z.ZodType>(schema: S, value: unknown, src: SourceText, what: string, prefix = "") {
  const r = schema.safeParse(value);
  if (r.success) return r.data as z.infer<S>;
  const problems = r.error.issues.slice(0, 20).map((i) => `${src.path}: ${keyPath(i.path, prefix)}: ${i.message}`);
  if (r.error.issues.length > 20) problems.push(`... and ${r.error.issues.length - 20} more`);
  throw new InputError(`${src.path}: not a ${what}`, problems);
}

/** Epoch seconds (a float, as Python's time.time() writes) → epoch ms; null stays null. */
export const secondsToMs = (s: number | null | undefined): number | null => (s == null ? null : s * 1000);
