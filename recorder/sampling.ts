/**
 * Which user actions are recorded: a rule of the request id alone, so that the service and the page (which knows the
 * id it sent) decide alike without talking, and a re-run over the same ids samples the same tasks. The hash is a few
 * lines of integer arithmetic, the same in a browser (recorder/browser.js) as here, with no `crypto.subtle` (which a
 * page served over plain HTTP does not have).
 *
 * @module
 */

/**
 * The 32-bit hash of a request id that sampling compares with the rate: FNV-1a over the id's UTF-8 bytes (offset
 * basis 0x811c9dc5, prime 0x01000193), then MurmurHash3's 32-bit finalizer (`h ^= h >>> 16; h = imul(h, 0x85ebca6b);
 * h ^= h >>> 13; h = imul(h, 0xc2b2ae35); h ^= h >>> 16`), unsigned. The finalizer spreads ids that differ only in
 * their last characters (`req-1`, `req-2`, …) over the whole range.
 *
 * @example FNV-1a of "a" is 0xe40c292c (the FNV test vector); the finalizer makes it 0x1a80b1b3
 * ```ts
 * import { sampleHash } from "./sampling.ts";
 * import assert from "node:assert/strict";
 * assert.equal(sampleHash("a"), 0x1a80b1b3);
 * ```
 */
export function sampleHash(requestId: string): number {
  // The UTF-8 bytes are made here, as TextEncoder would make them (a lone surrogate as U+FFFD), without a buffer: the
  // hash runs in begin(), on the app's request path.
  let h = 0x811c9dc5;
  const fnv = (byte: number) => {
    h = Math.imul(h ^ byte, 0x01000193);
  };
  const n = requestId.length;
  for (let i = 0; i < n; i++) {
    let c = requestId.charCodeAt(i);
    if (c < 0x80) {
      fnv(c);
      continue;
    }
    if (c < 0x800) {
      fnv(0xc0 | (c >> 6));
      fnv(0x80 | (c & 0x3f));
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? requestId.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        fnv(0xf0 | (cp >> 18));
        fnv(0x80 | ((cp >> 12) & 0x3f));
        fnv(0x80 | ((cp >> 6) & 0x3f));
        fnv(0x80 | (cp & 0x3f));
        continue;
      }
      c = 0xfffd;
    }
    fnv(0xe0 | (c >> 12));
    fnv(0x80 | ((c >> 6) & 0x3f));
    fnv(0x80 | (c & 0x3f));
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Whether the task with this request id is recorded at sampling rate `rate` (0 < rate ≤ 1): `sampleHash(id) / 2^32 <
 * rate`. At rate 1 every id is sampled (the hash is below 2^32).
 *
 * @example "a" hashes to 0x1a80b1b3 / 2^32 = 0.1035…: sampled at 0.2, not at 0.1
 * ```ts
 * import { isSampled } from "./sampling.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isSampled("a", 0.2), true);
 * assert.equal(isSampled("a", 0.1), false);
 * ```
 */
export function isSampled(requestId: string, rate: number): boolean {
  // At rate ≥ 1 every hash is below 2^32 × rate: the request path skips the hash (~1 µs a task here).
  return rate >= 1 || sampleHash(requestId) / 4294967296 < rate;
}

/** The sampling rule in words, as run.json `sampling.rule` states it. */
export const SAMPLING_RULE = "a user action is recorded when h(request_id) / 2^32 < rate, where h is the 32-bit " +
  "FNV-1a hash of the request id's UTF-8 bytes (offset basis 0x811c9dc5, prime 0x01000193) followed by " +
  "MurmurHash3's fmix32 finalizer (h ^= h >>> 16; h = imul(h, 0x85ebca6b); h ^= h >>> 13; h = imul(h, 0xc2b2ae35); " +
  "h ^= h >>> 16), unsigned; the page (recorder/browser.js) applies the same rule to the id it sends, so both sides " +
  "record the same tasks";
