/**
 * Typed reads of a span's attributes for the OTLP reader (importers/sources/otlp_rows.ts): a value of the wrong type is
 * a problem naming the file, the line, the span and the attribute, collected so that every problem is named at once.
 *
 * @module
 */
import type { ReadSpan } from "./otlp_spans.ts";

/** Typed reads of a span's attributes; a value of the wrong type is a problem naming the span and the attribute. */
export function reader(span: ReadSpan, problems: string[]) {
  const bad = (key: string, want: string) => {
    problems.push(
      `${span.at}: span "${span.name}" (${span.spanId}): attribute ${key}: ` +
        `${JSON.stringify(span.attrs.get(key))} is not ${want}`,
    );
    return null;
  };
  const get = (key: string) => span.attrs.get(key) ?? null;
  const int = (key: string, min: number) => {
    const v = get(key);
    if (v === null) return null;
    return typeof v === "number" && Number.isSafeInteger(v) && v >= min
      ? v
      : bad(key, min === 0 ? "a count" : "an integer");
  };
  return {
    str: (key: string): string | null => {
      const v = get(key);
      return v === null || typeof v === "string" ? v : bad(key, "a string");
    },
    int: (key: string): number | null => int(key, -Infinity),
    count: (key: string): number | null => int(key, 0),
    num: (key: string): number | null => {
      const v = get(key);
      return v === null || (typeof v === "number" && Number.isFinite(v)) ? v : bad(key, "a number");
    },
    bool: (key: string): boolean | null => {
      const v = get(key);
      return v === null || typeof v === "boolean" ? v : bad(key, "a boolean");
    },
    first: (key: string): string | null => {
      const v = get(key);
      if (v === null) return null;
      if (typeof v === "string") return v;
      return Array.isArray(v) && (v.length === 0 || typeof v[0] === "string") ? (v[0] ?? null) : bad(key, "strings");
    },
  };
}
