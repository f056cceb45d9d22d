/**
 * What every reader of inference-perf, LLMPerf, MLPerf LoadGen and generic files shares: a source file read as text
 * with the sha256 of its bytes, JSON parsed with errors that name the file, line and column, and zod problems
 * rendered as `file: path.to[3].key: message`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceFile } from "../source.ts";

/** A source file as read: its path as given, its text (UTF-8) and the sha256 of its bytes. */
export interface SourceText {
  path: string;
  text: string;
  sha256: string;
}

/** The sha256 (hex) of a text's UTF-8 bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A {@linkcode SourceText} from text already in memory (tests, exporters): the hash is of its UTF-8 bytes. */
export function sourceText(path: string, text: string): SourceText {
  return { path, text, sha256: sha256Hex(text) };
}

/** Reads each path as UTF-8 text; a missing or unreadable file is an {@linkcode InputError} naming it. */
export async function loadSourceTexts(paths: string[]): Promise<SourceText[]> {
  const out: SourceText[] = [];
  for (const path of paths) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(path);
    } catch (e) {
      throw new InputError(`${path}: cannot read the file (${(e as Error).message})`, [], { cause: e });
    }
    out.push({ path, text: new TextDecoder("utf-8", { fatal: false }).decode(bytes), sha256: sha256Hex(bytes) });
  }
  return out;
}

/** The {@linkcode SourceFile} entry of a read file. */
export function fileEntry(t: SourceText, format: string): SourceFile {
  return { path: t.path, sha256: t.sha256, format };
}

/** The last path segment of a file path. */
export function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

/** Line and column (1-based) of a character offset in a text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/**
 * Parses JSON text; a syntax error (a truncated file, a stray comma) becomes an {@linkcode InputError} naming the
 * file, and the line and column when the parser gives a position. `lineOffset` shifts the line for one line of a
 * JSONL or MLLOG file.
 */
export function parseJson(text: string, where: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const pos = /at position (\d+)/.exec(message);
    let at = where;
    if (pos) {
      const { line, column } = lineColumn(text, Number(pos[1]));
      at = `${where}:${line + lineOffset}:${column}`;
    } else if (/Unexpected end of JSON input/.test(message)) {
      const { line, column } = lineColumn(text, text.length);
      at = `${where}:${line + lineOffset}:${column}`;
    }
    throw new InputError(`${at}: not valid JSON (${message.replace(/ \(line \d+ column \d+\)$/, "")})`, [], {
      cause: e,
    });
  }
}

/** A zod issue path as `[3].info.output_tokens`. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : `${out === "" ? "" : "."}${String(p)}`;
  return out;
}

/**
 * Validates `value` with a zod schema; every problem becomes one line `file: prefix.path: message` of one
 * {@linkcode InputError} (at most 20 listed, then a count).
 */
export function checked<S extends z.ZodType>(schema: S, value: unknown, file: string, prefix = ""): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => {
    const p = issuePath(i.path);
    const at = prefix + (prefix && p && !p.startsWith("[") ? "." : "") + p;
    return `${file}: ${at || "(top level)"}: ${i.message}`;
  });
  const shown = lines.slice(0, 20);
  if (lines.length > shown.length) shown.push(`… and ${lines.length - shown.length} more problems`);
  throw new InputError(`${file}: does not have the expected shape`, shown);
}
