/**
 * A fake recorder for the tests of what drives a task (recorder/fetch.ts): `begin` gives a task that logs every call
 * with the wall-clock time it was made (`performance.timeOrigin + performance.now()`, the recorder's default clock),
 * numbers its attempts within their round, and is the current task inside `run` (AsyncLocalStorage, as the recorder).
 * It writes nothing.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type {
  Attempt,
  AttemptEnd,
  AttemptStart,
  Completion,
  Recorder,
  RecorderStats,
  Task,
  TaskStart,
} from "../../recorder/types.ts";

/** The wall clock in ms since the Unix epoch, as the recorder's default clock. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** What one attempt was told, and when. */
export interface FakeAttempt {
  start: AttemptStart;
  round: number;
  /** 1-based within its round. */
  attempt: number;
  sent_ms: number;
  headers: { status: number; at: number }[];
  tokens: number[];
  ends: (AttemptEnd & { at: number })[];
}

/** A task that logs its calls. */
export class FakeTask implements Task {
  readonly request_id: string;
  readonly sampled: boolean;
  readonly attempts: FakeAttempt[] = [];
  readonly #als: AsyncLocalStorage<Task>;
  /** Set to make every Attempt method throw (a broken recorder). */
  throwing = false;

  constructor(als: AsyncLocalStorage<Task>, start: TaskStart, sampled: boolean) {
    this.#als = als;
    this.request_id = start.request_id ?? crypto.randomUUID();
    this.sampled = sampled;
  }

  attempt(start: AttemptStart = {}): Attempt {
    const round = start.round ?? 0;
    const log: FakeAttempt = {
      start,
      round,
      attempt: this.attempts.filter((a) => a.round === round).length + 1,
      sent_ms: wallNow(),
      headers: [],
      tokens: [],
      ends: [],
    };
    this.attempts.push(log);
    const guard = () => {
      if (this.throwing) throw new Error("fake recorder failure");
    };
    return {
      headers: (status) => {
        guard();
        log.headers.push({ status, at: wallNow() });
      },
      token: () => {
        guard();
        log.tokens.push(wallNow());
      },
      end: (result) => {
        guard();
        log.ends.push({ ...result, at: wallNow() });
      },
    };
  }

  run<T>(fn: () => T): T {
    return this.#als.run(this, fn);
  }
  received(): void {}
  sent(): void {}
  firstToken(): void {}
  span<T>(_tool: string, fn: () => T | Promise<T>): Promise<T> {
    return Promise.resolve(fn());
  }
  phase<T>(_name: string, fn: () => T | Promise<T>): Promise<T> {
    return Promise.resolve(fn());
  }
  complete(_result?: Completion): void {}
  responded(): void {}
  rendered(): void {}
  fail(): void {}
}

/** A recorder whose tasks are {@linkcode FakeTask}s; `sampled: false` makes every task unsampled. */
export class FakeRecorder implements Recorder {
  readonly run_id = "fake";
  readonly out = "(none)";
  readonly tasks: FakeTask[] = [];
  readonly #als = new AsyncLocalStorage<Task>();
  readonly #sampled: boolean;

  constructor(options: { sampled?: boolean } = {}) {
    this.#sampled = options.sampled ?? true;
  }
  begin(start: TaskStart): FakeTask {
    const t = new FakeTask(this.#als, start, this.#sampled);
    this.tasks.push(t);
    return t;
  }
  current(): Task | undefined {
    return this.#als.getStore();
  }
  page(): void {}
  clockNow(): number {
    return wallNow();
  }
  stats(): RecorderStats {
    return {
      begun: this.tasks.length,
      sampled_out: 0,
      written: 0,
      buffered: 0,
      dropped: { requests: 0, attempts: 0, tools: 0, phases: 0 },
      page_records_unjoined: 0,
      recorder_errors: 0,
    };
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  rotate(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Resolves once `cond` holds (polled every 5 ms), or rejects after `ms`. */
export async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
