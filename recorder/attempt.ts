/**
 * One model call of a recorded task: what it was told and when (send, headers, each token, its end), kept as
 * service-clock instants until the task's rows are built (recorder/task_rows.ts).
 *
 * @module
 */
import type { Attempt, AttemptEnd, AttemptStart, Usage } from "./types.ts";

/** What the recorder keeps of one model call. Times: service clock, ms since the Unix epoch. */
export interface AttemptState {
  round: number;
  /** 1-based, within its round, in the order the calls started (as the runner numbers them). */
  attempt: number;
  route: string | null;
  provider: string | null;
  model: string | null;
  streamed: boolean | null;
  sent: number;
  headers: number | null;
  /** The status `headers()` was told. */
  status: number | null;
  first_token: number | null;
  last_token: number | null;
  /** Gaps between consecutive tokens, ms: the ITL. */
  gaps: number[];
  /** How it ended (null: never told). */
  end: (AttemptEnd & { at: number; usage: Usage | null }) | null;
}

/** What an attempt needs from its task: the clock, the error counter, and whether the task is still recording. */
export interface AttemptHost {
  /**
   * An app-given instant, checked: one not finite, later than the clock's now, or earlier than `notBeforeMs` (what
   * that is: `notBeforeWhat`; by default the task's action) is an error and the clock's now is used. Nothing is
   * allocated on the way (a call's `token()` comes here once per token).
   */
  time(at: number | undefined, what: string, notBeforeMs?: number, notBeforeWhat?: string): number;
  error(e: unknown): void;
  /** The task's rows are built: later calls are ignored. */
  readonly closed: boolean;
}

/** What a call's later instants may not precede. */
const SENT = "the call's send";

/** Whether `v` is a count the log can hold (a non-negative safe integer). */
function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** A usage object checked: every count present a non-negative integer, or the problem. */
export function checkUsage(u: Usage): string | null {
  if (typeof u !== "object" || u === null) return "usage is not an object";
  for (const k of ["input_tokens", "output_tokens"] as const) if (!isCount(u[k])) return `usage.${k} is ${u[k]}`;
  for (const k of ["cached_input_tokens", "reasoning_tokens", "cache_write_tokens"] as const) {
    if (u[k] !== undefined && u[k] !== null && !isCount(u[k])) return `usage.${k} is ${u[k]}`;
  }
  return null;
}

/** A status code the log can hold: an integer (any, as the wire gave it), or the problem. */
function statusProblem(s: unknown): string | null {
  return s === null || s === undefined || Number.isSafeInteger(s) ? null : `http_status is ${String(s)}`;
}

/** The attempt handle an app (or the recording fetch) holds. Never throws; ignored once the task is written. */
export class RecordedAttempt implements Attempt {
  readonly state: AttemptState;
  readonly #host: AttemptHost;

  constructor(host: AttemptHost, start: AttemptStart, numbers: { round: number; attempt: number }) {
    this.#host = host;
    this.state = {
      round: numbers.round,
      attempt: numbers.attempt,
      route: typeof start.route === "string" ? start.route : null,
      provider: typeof start.provider === "string" ? start.provider : null,
      model: typeof start.model === "string" ? start.model : null,
      streamed: typeof start.streamed === "boolean" ? start.streamed : null,
      sent: host.time(start.at, "attempt.at"),
      headers: null,
      status: null,
      first_token: null,
      last_token: null,
      gaps: [],
      end: null,
    };
  }

  headers(status: number, at?: number): void {
    try {
      if (this.#host.closed || this.state.headers !== null) return;
      this.state.headers = this.#host.time(at, "attempt.headers", this.state.sent, SENT);
      const problem = statusProblem(status);
      if (problem) throw new TypeError(`attempt.headers: ${problem}; the status is not recorded`);
      this.state.status = status;
    } catch (e) {
      this.#host.error(e);
    }
  }

  token(at?: number): void {
    try {
      if (this.#host.closed || this.state.end !== null) return;
      const s = this.state;
      const t = s.last_token === null
        ? this.#host.time(at, "attempt.token", s.sent, SENT)
        : this.#host.time(at, "attempt.token", s.last_token, "the call's token before it");
      if (s.last_token === null) s.first_token = t;
      else s.gaps.push(t - s.last_token);
      s.last_token = t;
    } catch (e) {
      this.#host.error(e);
    }
  }

  end(result: AttemptEnd): void {
    try {
      if (this.#host.closed || this.state.end !== null) return;
      // The call happened: it is always ended; a value the log cannot hold is left out, and counted as an error.
      const drop = (what: string) => this.#host.error(new TypeError(`attempt.end: ${what}; not recorded`));
      let r: AttemptEnd = { ok: false };
      if (typeof result === "object" && result !== null) r = { ...result };
      else drop("the result is not an object (the attempt is written as failed)");
      if (typeof r.ok !== "boolean") {
        drop(`ok is ${String(r.ok)}, not a boolean (the attempt is written as failed)`);
        r.ok = false;
      }
      const problem = statusProblem(r.http_status);
      if (problem) {
        drop(problem);
        r.http_status = null;
      }
      let usage = r.usage ?? null;
      const bad = usage === null ? null : checkUsage(usage);
      if (bad) {
        drop(bad);
        usage = null;
      }
      for (const k of ["backoff_ms", "retry_after_ms"] as const) {
        const v = r[k];
        if (v !== undefined && v !== null && !(Number.isFinite(v) && v >= 0)) {
          drop(`${k} is ${v}, not a non-negative number`);
          delete r[k];
        }
      }
      for (const k of ["error_kind", "retry_reason", "finish_reason", "service_mode"] as const) {
        const v = r[k];
        if (v !== undefined && v !== null && typeof v !== "string") {
          drop(`${k} is not a string`);
          delete r[k];
        }
      }
      this.state.end = { ...r, usage, at: this.#host.time(r.at, "attempt.end", this.state.sent, SENT) };
    } catch (e) {
      this.#host.error(e);
    }
  }
}
