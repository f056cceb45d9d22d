/**
 * A caveat said in one line: its severity, at most {@linkcode LINE_MAX}
 * characters of what it changes, and where its detail is (a docs anchor). The
 * long text stays in the JSON and in the detail; the first screen of the
 * report and of every command shows only the line.
 *
 * @module
 */

/**
 * How much a caveat changes: `INVALID` the numbers may not measure the target (an incomplete run, nothing accepted, a
 * client-limited run or stage); `WARNING` they may be off (dropped records, missing shards, a load warning); `NOTE`
 * read them with this in mind.
 */
export type CaveatSeverity = "INVALID" | "WARNING" | "NOTE";

/** The longest caveat line, characters. */
export const LINE_MAX = 140;

/**
 * `text` cut to at most `max` characters on a word boundary, ending in "…" when cut; line breaks become spaces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oneLine } from "./caveat_line.ts";
 * assert.equal(oneLine("short enough"), "short enough");
 * assert.equal(oneLine("the runner reports the client was the limit (p99 send lag 12 ms)", 40), "the runner reports the client was the…");
 * ```
 */
export function oneLine(text: string, max: number = LINE_MAX): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const head = flat.slice(0, max - 1);
  const space = head.lastIndexOf(" ");
  // A word boundary in the second half, else a hard cut; no dangling punctuation before the ellipsis.
  const cut = space > max / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:(—–-]+$/, "")}…`;
}
