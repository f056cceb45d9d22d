/**
 * What every dialect's answer parser shares: the text, the tool calls being
 * assembled, the usage (or why it cannot be used), the first problem found,
 * and the token timing (first and last token, gaps between token-bearing
 * events). A dialect's parser extends {@linkcode AnswerBase} and feeds it
 * through the protected methods; the fields it exposes are those of
 * `AnswerParser` (runner/dialects/dialect.ts).
 *
 * @module
 */
import type { ObservedToolCall } from "../checks/check.ts";
import type { Usage } from "../usage.ts";
import type { AnswerParser, StreamEvent, StreamFailure } from "./dialect.ts";

const NO_GAPS = new Float64Array(0);

/** One tool call being assembled from the answer's pieces. */
export interface ToolCallPiece {
  /** Position of the call in the answer (0, 1, …); absent: a new call after the last. */
  index?: number;
  id?: string;
  name?: string;
  /** A piece of the arguments' JSON text. */
  arguments?: string;
}

/** The shared state and bookkeeping of an answer parser. */
export abstract class AnswerBase implements AnswerParser {
  text = "";
  finishReason: string | null = null;
  usage: Usage | null = null;
  badUsage: string | null = null;
  firstTokenMs: number | null = null;
  lastTokenMs: number | null = null;
  malformed: string | null = null;
  malformedKind: string | null = null;
  serviceTier: string | null = null;
  streamFailure: StreamFailure | null = null;
  protected readonly calls: { id: string; name: string; args: string }[] = [];
  /** Gaps other than 0, in arrival order. */
  readonly #gaps: number[] = [];
  /**
   * Gaps of exactly 0, counted and not stored: the events one read brings share its instant, so a fast server's whole
   * answer can be one read and a list of zeros.
   */
  #zeroGaps = 0;

  abstract feedEvent(ev: StreamEvent, tMs: number): void;
  abstract feedBody(body: string, tMs: number): void;
  abstract complete(): boolean;

  /** Tool calls as the model sent them (arguments parsed when they are a JSON object). */
  toolCalls(): (ObservedToolCall & { id: string })[] {
    return this.calls.map((c) => ({ id: c.id, name: c.name, raw_arguments: c.args, arguments: parseArgs(c.args) }));
  }

  /** Median and largest gap between token-bearing events (null with fewer than two). */
  itl(): { p50: number | null; max: number | null } {
    const zeros = this.#zeroGaps;
    const s = this.#gaps.length ? Float64Array.from(this.#gaps).sort() : NO_GAPS; // numeric, native: no comparator
    const n = s.length + zeros;
    if (n === 0) return { p50: null, max: null };
    // The sorted gaps with the zeros in their place: after the negative ones (none on a monotonic clock).
    let neg = 0;
    while (neg < s.length && s[neg]! < 0) neg++;
    const at = (k: number) => k < neg ? s[k]! : k < neg + zeros ? 0 : s[k - zeros]!;
    const mid = n >> 1;
    const p50 = n % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
    return { p50, max: at(n - 1) };
  }

  /** Marks the answer malformed with a precise kind (the first problem wins). */
  protected bad(kind: string, problem: string): void {
    if (this.malformed !== null) return;
    this.malformed = problem.slice(0, 200);
    this.malformedKind = kind;
  }

  /** Takes a usage report read by the dialect: a usable one replaces the last, an unusable one voids usage. */
  protected takeUsage(r: { ok: true; usage: Usage } | { ok: false; problem: string }): void {
    if (r.ok) {
      if (this.badUsage === null) this.usage = r.usage;
      return;
    }
    this.usage = null;
    this.badUsage ??= r.problem;
  }

  /** A token-bearing event at `tMs`: the first token's time, or one more gap. */
  protected tokenAt(tMs: number): void {
    if (this.firstTokenMs === null) this.firstTokenMs = tMs;
    else {
      const gap = tMs - this.lastTokenMs!;
      if (gap === 0) this.#zeroGaps++;
      else this.#gaps.push(gap);
    }
    this.lastTokenMs = tMs;
  }

  /** Adds a piece of a tool call (a new call, or more of one already started). */
  protected mergeCall(tc: ToolCallPiece): void {
    const i = tc.index ?? this.calls.length;
    const cur = this.calls[i] ?? (this.calls[i] = { id: "", name: "", args: "" });
    if (tc.id) cur.id = tc.id;
    if (tc.name) cur.name += tc.name;
    if (tc.arguments) cur.args += tc.arguments;
  }

  /** Every token of a whole body arrives at once. */
  protected wholeAt(tMs: number): void {
    this.firstTokenMs = this.lastTokenMs = tMs;
  }
}

/** The JSON object a tool call's arguments hold, or undefined when they are not one. */
export function parseArgs(raw: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(raw);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A count from an untrusted usage report: absent or null → null; else a non-negative safe integer, or a problem. */
export function usageCount(o: Record<string, unknown> | null | undefined, key: string, path: string): number | null {
  const v = o?.[key];
  if (v === undefined || v === null) return null;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  throw new BadUsage(`${path} is ${JSON.stringify(v)?.slice(0, 40)}, not a non-negative integer`);
}

/** A usage report that cannot be used (thrown by {@linkcode usageCount}; catch it where the report is read). */
export class BadUsage extends Error {}
