/**
 * What every reader of a peer tool's files shares: a source file read as text with the sha256 of its bytes, JSON and
 * YAML parsed with errors that name the file, line and column, and zod problems rendered as
 * `file: path.to[3].key: message`, every one at once.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { load, YAMLException } from "js-yaml";
import type { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceFile } from "../source.ts";

/** A source file as read: its path as given, its text (UTF-8) and the sha256 of its bytes. */
export interface SourceText {
  path: string;
  text: string;
  sha256: string;
}

/** The sha256 (hex) of bytes, or of a text's UTF-8 bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A {@linkcode SourceText} from text already in memory (tests, exporters): the hash is of its UTF-8 bytes. */
export function sourceText(path: string, text: string): SourceText {
  return { path, text, sha256: sha256Hex(text) };
}

/** Reads one path as UTF-8 text; a missing or unreadable file is an {@linkcode InputError} naming it. */
export async function readSourceText(path: string): Promise<SourceText> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    throw new InputError(`${path}: cannot read the file (${(e as Error).message})`, [], { cause: e });
  }
  return { path, text: new TextDecoder("utf-8", { fatal: false }).decode(bytes), sha256: sha256Hex(bytes) };
}

/** Reads each path in turn with {@linkcode readSourceText}. */
export async function loadSourceTexts(paths: readonly string[]): Promise<SourceText[]> {
  const out: SourceText[] = [];
  for (const path of paths) out.push(await readSourceText(path));
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

/** Where a parsed text starts in its file (1-based), when it is a piece of the file: one line of a JSONL file. */
export interface TextStart {
  /** The file's line of the text's first line. @default 1 */
  line?: number;
  /** The column of the text's first character on that line. @default 1 */
  column?: number;
}

/** `where:line:column` of a position inside a text that starts at `start` in its file. */
function placeIn(where: string, text: string, offset: number, start: TextStart): string {
  const at = lineColumn(text, offset);
  const column = at.line === 1 ? at.column + (start.column ?? 1) - 1 : at.column;
  return `${where}:${at.line + (start.line ?? 1) - 1}:${column}`;
}

/**
 * Parses JSON text; a syntax error (a truncated file, a stray comma) becomes an {@linkcode InputError} naming the
 * file, and the line and column when the parser gives a position (the line alone for a one-line text without one).
 */
export function parseJson(text: string, where: string, start: TextStart = {}): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const pos = /at position (\d+)/.exec(message);
    let at = where;
    if (pos) at = placeIn(where, text, Number(pos[1]), start);
    else if (/Unexpected end of JSON input/.test(message)) at = placeIn(where, text, text.length, start);
    else if (!text.includes("\n")) at = `${where}:${start.line ?? 1}`;
    throw new InputError(`${at}: not valid JSON (${message.replace(/ \(line \d+ column \d+\)$/, "")})`, [], {
      cause: e,
    });
  }
}

/** Parses YAML (js-yaml, one document); a syntax error is an {@linkcode InputError} naming the file, line and column. */
export function parseYaml(text: string, where: string): unknown {
  try {
    return load(text);
  } catch (e) {
    if (!(e instanceof YAMLException)) throw e;
    const at = e.mark ? `${where}:${e.mark.line + 1}:${e.mark.column + 1}` : where;
    throw new InputError(`${at}: not valid YAML (${e.reason})`, [], { cause: e });
  }
}

/** A zod issue path under `prefix` as `prefix[3].info.output_tokens`; `(top level)` when both are empty. */
export function issuePath(path: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const p of path) out += typeof p === "number" ? `[${p}]` : `${out === "" ? "" : "."}${String(p)}`;
  return out || "(top level)";
}

/** The most problems one {@linkcode InputError} lists before it counts the rest. */
export const MAX_PROBLEMS = 20;

/** An {@linkcode InputError} listing problems, at most {@linkcode MAX_PROBLEMS} of them, then how many more. */
export function problemsError(message: string, problems: readonly string[]): InputError {
  const shown = problems.slice(0, MAX_PROBLEMS);
  if (problems.length > shown.length) shown.push(`... and ${problems.length - shown.length} more problems`);
  return new InputError(message, shown);
}

/** Options of {@linkcode checked}. */
export interface CheckedOptions {
  /** The key path of `value` in its file, put before each problem's path. @default "" */
  prefix?: string;
  /** What the file should be ("GuideLLM v0.2–0.3 report"): the error says it is not one. */
  what?: string;
}

/**
 * Validates `value` with a zod schema; every problem becomes one line `file: prefix.path: message` of one
 * {@linkcode InputError} (see {@linkcode problemsError}).
 */
export function checked<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  options: CheckedOptions = {},
): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => `${file}: ${issuePath(i.path, options.prefix)}: ${i.message}`);
  const what = options.what === undefined ? "does not have the expected shape" : `not a ${options.what}`;
  throw problemsError(`${file}: ${what}`, problems);
}

/** Epoch seconds (a float, as Python's time.time() writes) → epoch ms; null stays null. */
export const secondsToMs = (s: number | null | undefined): number | null => (s == null ? null : s * 1000);
