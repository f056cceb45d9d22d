/**
 * Request ids for tasks begun without one: the recorder's random prefix and a counter. A UUID a task costs a random
 * draw and its formatting on the app's request path (11 µs at the median in `begin`, timed after a 10 ms sleep on a
 * two-core virtual machine, docs/recorder.md "Cost"); a counter costs a string concatenation.
 *
 * @module
 */

/**
 * Ids `<prefix>-<n>`: `prefix` 24 hex digits (96 random bits, drawn once per recorder), `n` a base-36 counter from 0.
 * Unique within a recording; two recorders share a prefix with a chance of about 2^-96.
 *
 * @example Ids from a fixed prefix
 * ```ts
 * import { IdSource } from "./ids.ts";
 * import assert from "node:assert/strict";
 * const ids = new IdSource(new Uint8Array(12).fill(0xab));
 * assert.equal(ids.next(), "abababababababababababab-0");
 * for (let i = 1; i < 36; i++) ids.next();
 * assert.equal(ids.next(), "abababababababababababab-10");
 * ```
 */
export class IdSource {
  readonly prefix: string;
  #n = 0;

  constructor(random: Uint8Array = crypto.getRandomValues(new Uint8Array(12))) {
    this.prefix = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("") + "-";
  }

  next(): string {
    return this.prefix + (this.#n++).toString(36);
  }
}
