/**
 * One user action being recorded: the times and records the app reports on its task, kept until the recorder builds
 * the task's rows (recorder/task_rows.ts). Every method catches its own failures (counted, never thrown); `span`,
 * `phase` and `run` pass the app's own results and errors through unchanged.
 *
 * @module
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import { OUTCOMES } from "../schema/events.ts";
import { type AttemptHost, type AttemptState, RecordedAttempt } from "./attempt.ts";
import { NOOP_ATTEMPT } from "./unsampled_task.ts";
import type { Attempt, AttemptStart, Completion, PageRecord, Task, TaskStart } from "./types.ts";
import type { Outcome } from "../schema/events.ts";

/** One retrieval or tool step. */
export interface SpanState {
  round: number;
  tool: string;
  started: number;
  ended: number;
  ok: boolean;
  error_kind: string | null;
}

/** One service-side phase of the app's own (`task.phase`). */
export interface PhaseState {
  phase: string;
  started: number;
  ended: number;
}

/** The gates and answer `complete()` was told, checked. A gate key absent: not applicable. */
export type CompletionState = Omit<Completion, "at"> & { at: number };

/** Everything recorded of one task. Times: service clock, ms since the Unix epoch. */
export interface TaskState {
  request_id: string;
  class: string;
  case_id: string;
  priority: number;
  /** The prompt text `begin` was given (hashed when the rows are built), or null. */
  prompt: string | null;
  page_expected: boolean;
  /** When `begin` was called, and the action time it was told (`TaskStart.at`). */
  begun: number;
  at: number | null;
  received: number | null;
  sent: number | null;
  first_token: number | null;
  responded: number | null;
  rendered: number | null;
  attempts: AttemptState[];
  spans: SpanState[];
  phases: PhaseState[];
  /** The current model round, and whether a model call of it has started (a tool step then opens the next). */
  round: number;
  round_called: boolean;
  completion: CompletionState | null;
  failure: { outcome: Outcome; error_kind: string } | null;
  /** When `complete()` or `fail()` ended the task (null: still open). */
  done: number | null;
  /** The page's record, once joined. */
  page: PageRecord | null;
}

/** Phase names the recorder writes itself: an app's own phase may not take one. */
export const RECORDER_PHASES: ReadonlySet<string> = new Set([
  "page",
  "network_up",
  "service",
  "network_down",
  "render",
]);

const GATES = ["valid", "schema_ok", "quality_ok", "safety_ok", "auth_ok"] as const;
const TEXTS = ["output", "quality_detail", "finish_reason"] as const;
const FAILURES: ReadonlySet<string> = new Set(OUTCOMES.filter((o) => !["ok", "not_sent", "client_shed"].includes(o)));

/** What a task needs from its recorder. */
export interface TaskHost {
  now(): number;
  error(e: unknown): void;
  readonly als: AsyncLocalStorage<Task>;
  /** `complete()` or `fail()` ended the task (its rows are built once it settles). */
  ended(task: RecordedTask): void;
}

/** The name of what a span's `fn` threw: the error's `name` (TypeError, AbortError, …), `thrown` for a non-Error. */
function thrownKind(e: unknown): string {
  return e instanceof Error && e.name ? e.name : "thrown";
}

/** A sampled task. */
export class RecordedTask implements Task, AttemptHost {
  readonly request_id: string;
  readonly sampled = true;
  readonly state: TaskState;
  /** Set when the recorder builds the task's rows: every later call is ignored. */
  closed = false;
  readonly #host: TaskHost;

  constructor(host: TaskHost, start: TaskStart, ids: { request_id: string; case_id: string; class: string }) {
    this.#host = host;
    this.request_id = ids.request_id;
    const begun = host.now();
    const at = start.at === undefined ? null : this.time(start.at, "begin.at");
    this.state = {
      request_id: ids.request_id,
      class: ids.class,
      case_id: ids.case_id,
      priority: start.priority ?? 0,
      prompt: typeof start.prompt === "string" ? start.prompt : null,
      page_expected: start.page === true,
      begun,
      at,
      received: null,
      sent: null,
      first_token: null,
      responded: null,
      rendered: null,
      attempts: [],
      spans: [],
      phases: [],
      round: 0,
      round_called: false,
      completion: null,
      failure: null,
      done: null,
      page: null,
    };
  }

  /**
   * An app-given instant: the clock's now when absent. One that cannot be when something happened — not a finite
   * number, later than the clock's now, or earlier than `notBeforeMs` (by default the task's action as known so far;
   * `notBeforeWhat` names it) — is counted as an error and replaced by now, so no row holds an instant not yet reached
   * or a latency below 0. Allocates nothing unless it refuses.
   */
  time(at: number | undefined, what: string, notBeforeMs?: number, notBeforeWhat?: string): number {
    const now = this.#host.now();
    if (at === undefined) return now;
    let problem: string | null = null;
    if (typeof at !== "number" || !Number.isFinite(at)) problem = `${String(at)} is not a finite time`;
    else if (at > now) {
      problem = `${at} is ${+(at - now).toFixed(3)} ms after the recorder's clock (an instant not yet reached)`;
    } else {
      // While `begin` runs there is no state yet, and no floor: the action is what is being told.
      const s = this.state as TaskState | undefined;
      const floor = notBeforeMs ?? (s === undefined ? -Infinity : s.at ?? s.begun);
      if (at < floor) {
        problem = `${at} is ${+(floor - at).toFixed(3)} ms before ${notBeforeWhat ?? "the task's action"}`;
      }
    }
    if (problem === null) return at;
    this.#host.error(new TypeError(`${what}: ${problem}; the clock's now is used`));
    return now;
  }

  error(e: unknown): void {
    this.#host.error(e);
  }

  #mark(key: "received" | "sent" | "first_token" | "responded" | "rendered", at: number | undefined): void {
    try {
      if (this.closed || this.state[key] !== null) return;
      this.state[key] = this.time(at, `task.${key}`);
    } catch (e) {
      this.#host.error(e);
    }
  }

  received(at?: number): void {
    this.#mark("received", at);
  }
  sent(at?: number): void {
    this.#mark("sent", at);
  }
  firstToken(at?: number): void {
    this.#mark("first_token", at);
  }
  responded(at?: number): void {
    this.#mark("responded", at);
  }
  rendered(at?: number): void {
    this.#mark("rendered", at);
  }

  attempt(start: AttemptStart = {}): Attempt {
    const s = this.state;
    try {
      let round = s.round;
      if (start.round !== undefined) {
        if (Number.isSafeInteger(start.round) && start.round >= 0) round = s.round = start.round;
        else this.#host.error(new TypeError(`attempt.round: ${start.round} is not a count; the current round is used`));
      }
      s.round_called = true;
      const attempt = 1 + s.attempts.filter((a) => a.round === round).length;
      const a = new RecordedAttempt(this, start, { round, attempt });
      if (!this.closed) s.attempts.push(a.state);
      return a;
    } catch (e) {
      this.#host.error(e);
      return NOOP_ATTEMPT;
    }
  }

  /** The round of a step: given, or the current one; a tool (not retrieval) after a model call opens the next. */
  #spanRound(tool: string, round: number | undefined): number {
    const s = this.state;
    if (round !== undefined) {
      if (Number.isSafeInteger(round) && round >= 0) return round;
      this.#host.error(new TypeError(`span round: ${round} is not a count; the current round is used`));
    }
    if (tool !== "retrieval" && s.round_called) {
      s.round += 1;
      s.round_called = false;
    }
    return s.round;
  }

  async span<T>(tool: string, fn: () => T | Promise<T>, options: { round?: number } = {}): Promise<T> {
    let rec: { round: number; started: number } | null = null;
    try {
      if (typeof tool !== "string" || tool.length === 0) throw new TypeError("span: the tool must be named");
      rec = { round: this.#spanRound(tool, options.round), started: this.#host.now() };
    } catch (e) {
      this.#host.error(e);
    }
    let result: T;
    try {
      result = await fn();
    } catch (e) {
      if (rec) this.#span(tool, rec, { ok: false, error_kind: thrownKind(e) });
      throw e;
    }
    if (rec) this.#span(tool, rec, { ok: true, error_kind: null });
    return result;
  }

  #span(tool: string, rec: { round: number; started: number }, end: { ok: boolean; error_kind: string | null }) {
    try {
      if (!this.closed) this.state.spans.push({ tool, ...rec, ended: this.#host.now(), ...end });
    } catch (e) {
      this.#host.error(e);
    }
  }

  async phase<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    let started: number | null = null;
    try {
      if (typeof name !== "string" || name.length === 0) throw new TypeError("phase: the phase must be named");
      if (RECORDER_PHASES.has(name)) throw new TypeError(`phase: ${name} is one of the recorder's own phases`);
      started = this.#host.now();
    } catch (e) {
      this.#host.error(e);
    }
    try {
      return await fn();
    } finally {
      try {
        if (started !== null && !this.closed) {
          this.state.phases.push({ phase: name, started, ended: this.#host.now() });
        }
      } catch (e) {
        this.#host.error(e);
      }
    }
  }

  complete(result: Completion = {}): void {
    try {
      if (this.closed || this.state.done !== null) return;
      if (typeof result !== "object" || result === null) {
        this.#host.error(new TypeError("complete: the result must be an object; completed without gates"));
        result = {};
      }
      const c: Record<string, unknown> = { ...result };
      const drop = (key: string, what: string) => {
        this.#host.error(new TypeError(`complete: ${key} ${what}; written as null`));
        c[key] = null;
      };
      for (const g of GATES) if (c[g] != null && typeof c[g] !== "boolean") drop(g, "is not a boolean");
      for (const k of TEXTS) if (c[k] != null && typeof c[k] !== "string") drop(k, "is not a string");
      const at = this.time(result.at, "complete.at");
      this.state.completion = { ...c, at } as CompletionState;
      this.state.done = at;
      this.#host.ended(this);
    } catch (e) {
      this.#host.error(e);
    }
  }

  fail(outcome: Exclude<Outcome, "ok" | "not_sent" | "client_shed">, error_kind: string, at?: number): void {
    try {
      if (this.closed || this.state.done !== null) return;
      let o: Outcome = outcome;
      if (!FAILURES.has(outcome)) {
        this.#host.error(new TypeError(`fail: ${String(outcome)} is not a failed outcome; written as aborted`));
        o = "aborted";
      }
      let kind = error_kind;
      if (typeof kind !== "string" || kind.length === 0) {
        this.#host.error(new TypeError("fail: error_kind must be a non-empty string; written as unspecified"));
        kind = "unspecified";
      }
      this.state.failure = { outcome: o, error_kind: kind };
      this.state.done = this.time(at, "fail.at");
      this.#host.ended(this);
    } catch (e) {
      this.#host.error(e);
    }
  }

  run<T>(fn: () => T): T {
    return this.#host.als.run(this, fn);
  }
}
