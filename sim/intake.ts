import type { SimMessage } from "./chat_request.ts";
import type { SimError } from "./dialects/dialect.ts";

/**
 * The operator's intake switch (`POST /admin/intake`): while stopped, a new
 * task is refused with 503 and `Retry-After`; requests already admitted
 * finish, and later rounds of a task in flight (a conversation that already
 * holds tool results) are still served.
 */
export class IntakeSwitch {
  #accepting = true;
  #retryAfterS: number;
  #changedUnixMs: number | null = null;
  #refused = 0;
  readonly #defaultRetryAfterS: number;

  /** `retryAfterS`: the Retry-After of a refusal when the stop call names none. */
  constructor(retryAfterS: number) {
    this.#defaultRetryAfterS = retryAfterS;
    this.#retryAfterS = retryAfterS;
  }

  get accepting(): boolean {
    return this.#accepting;
  }

  /** Sets the switch; returns the state as `GET /admin/intake` shows it. */
  set(accept: boolean, retryAfterS?: number): IntakeState {
    if (accept !== this.#accepting) {
      this.#accepting = accept;
      this.#changedUnixMs = Date.now();
      if (!accept) this.#refused = 0;
    }
    this.#retryAfterS = retryAfterS ?? this.#defaultRetryAfterS;
    return this.state();
  }

  state(): IntakeState {
    return {
      accept: this.#accepting,
      retry_after_s: this.#retryAfterS,
      changed_unix_ms: this.#changedUnixMs,
      refused_since_stop: this.#refused,
    };
  }

  /**
   * The refusal of `messages` when intake is stopped and they start a new task (no tool result yet), else null: 503
   * `intake_stopped` with Retry-After, in the request's dialect.
   */
  refusal(messages: readonly SimMessage[]): SimError | null {
    if (this.#accepting || messages.some((m) => m.role === "tool")) return null;
    this.#refused++;
    return {
      class: "unavailable",
      message: "The service is not accepting new tasks (intake stopped by the operator).",
      code: "intake_stopped",
      headers: { "retry-after": String(this.#retryAfterS) },
    };
  }
}

/** What `GET`/`POST /admin/intake` answer. */
export interface IntakeState {
  accept: boolean;
  /** The Retry-After of a refusal, seconds. */
  retry_after_s: number;
  /** Wall-clock time of the last change, or null when never changed. */
  changed_unix_ms: number | null;
  /** New tasks refused since the last stop. */
  refused_since_stop: number;
}

/**
 * Parses a `POST /admin/intake` body: `{"accept": boolean, "retry_after_s"?: integer ≥ 0}`; a string error when it
 * is not one.
 *
 * @example
 * ```ts
 * import { parseIntakeBody } from "./intake.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseIntakeBody({ accept: false }), { accept: false });
 * assert.deepEqual(parseIntakeBody({ accept: false, retry_after_s: 3 }), { accept: false, retryAfterS: 3 });
 * assert.equal(typeof parseIntakeBody({ accept: "no" }), "string");
 * ```
 */
export function parseIntakeBody(body: unknown): { accept: boolean; retryAfterS?: number } | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body must be a JSON object";
  const b = body as Record<string, unknown>;
  const extra = Object.keys(b).filter((k) => k !== "accept" && k !== "retry_after_s");
  if (extra.length) return `unknown field(s): ${extra.join(", ")}`;
  if (typeof b.accept !== "boolean") return "accept must be true or false";
  if (b.retry_after_s === undefined) return { accept: b.accept };
  const r = b.retry_after_s;
  if (typeof r !== "number" || !Number.isInteger(r) || r < 0 || r > 86_400) {
    return "retry_after_s must be an integer from 0 to 86400";
  }
  return { accept: b.accept, retryAfterS: r };
}
