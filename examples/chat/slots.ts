/**
 * The chat app's queue: at most `n` questions are answered at once; the others wait their turn, in arrival order.
 * The wait is the task's `queue` phase (`task.phase("queue", () => slots.acquire())`).
 *
 * @module
 */

/** Admits `n` at a time, the rest in arrival order. */
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(n: number) {
    this.#free = n;
  }
  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
