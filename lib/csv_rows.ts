/**
 * Index just past the last line end that is outside quotes in a log CSV:
 * everything before it is whole rows, anything after is a row cut off
 * mid-write (a killed run). Quotes toggle state; `""` inside quotes toggles
 * twice.
 *
 * @example A cut last row is excluded
 * ```ts
 * import { endOfWholeRows } from "./csv_rows.ts";
 * import assert from "node:assert/strict";
 * assert.equal(endOfWholeRows('a,b\n1,"x\ny"\n2,"z'), 12); // "a,b\n" is 4, '1,"x\ny"\n' is 8
 * ```
 */
export function endOfWholeRows(text: string): number {
  let inQuotes = false;
  let end = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) inQuotes = !inQuotes;
    else if (c === 10 && !inQuotes) end = i + 1;
  }
  return end;
}
