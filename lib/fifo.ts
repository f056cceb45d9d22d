/**
 * A first-in first-out queue whose storage does not grow with what was taken out: taking is O(1), and the taken
 * front is dropped in one copy once it is most of the array.
 *
 * @example
 * ```ts
 * import { Fifo } from "./fifo.ts";
 * import assert from "node:assert/strict";
 * const q = new Fifo<number>();
 * q.push(1);
 * q.push(2);
 * assert.equal(q.shift(), 1);
 * assert.equal(q.length, 1);
 * assert.equal(q.shift(), 2);
 * assert.equal(q.shift(), undefined);
 * ```
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  /** Items in the queue. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, taken out; undefined when the queue is empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    // Let the taken item be collected before the front is dropped.
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
