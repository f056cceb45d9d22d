/** The result of parsing a model's output as JSON. */
export type ParsedJson = { ok: true; value: unknown } | { ok: false; error: string };

// Several checks parse the same final text in turn; keep the last result.
let lastText: string | undefined;
let lastParsed: ParsedJson = { ok: false, error: "nothing parsed" };

/**
 * Parses `text` strictly as JSON (surrounding whitespace allowed, no code
 * fences, no prose around it). Remembers the last text so the checks of one
 * request parse it once.
 */
export function parseJsonText(text: string): ParsedJson {
  if (text === lastText) return lastParsed;
  let parsed: ParsedJson;
  try {
    parsed = { ok: true, value: JSON.parse(text) };
  } catch (e) {
    // Converted into a check verdict: bad JSON is the model's failure, not ours.
    parsed = { ok: false, error: (e as SyntaxError).message };
  }
  lastText = text;
  lastParsed = parsed;
  return parsed;
}

/** Deep equality of JSON values: object key order is ignored, array order is not. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** A short JSON rendering of a value for a check's detail. */
export function showJson(value: unknown, max = 60): string {
  const s = value === undefined ? "(missing)" : JSON.stringify(value) ?? String(value);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
