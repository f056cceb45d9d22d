/**
 * A task the recorder does not record: left out by the sampling rule, begun with bad input, or begun after close.
 * Every method is a no-op; `span`, `phase` and `run` still run the app's code and pass its result or error through.
 *
 * @module
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import type { Attempt, Task } from "./types.ts";

/** An attempt that records nothing. */
export const NOOP_ATTEMPT: Attempt = { headers() {}, token() {}, end() {} };

/** A task the sampling rule left out (or begun after close): every method a no-op; span, phase and run call fn. */
export class UnsampledTask implements Task {
  readonly request_id: string;
  readonly sampled = false;
  readonly #als: AsyncLocalStorage<Task>;

  constructor(request_id: string, als: AsyncLocalStorage<Task>) {
    this.request_id = request_id;
    this.#als = als;
  }
  received(): void {}
  sent(): void {}
  firstToken(): void {}
  responded(): void {}
  rendered(): void {}
  complete(): void {}
  fail(): void {}
  attempt(): Attempt {
    return NOOP_ATTEMPT;
  }
  async span<T>(_tool: string, fn: () => T | Promise<T>): Promise<T> {
    return await fn();
  }
  async phase<T>(_name: string, fn: () => T | Promise<T>): Promise<T> {
    return await fn();
  }
  run<T>(fn: () => T): T {
    return this.#als.run(this, fn);
  }
}
