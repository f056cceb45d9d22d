/**
 * What a provider's batch API looks like to the runner: submit a batch of
 * whole request bodies, poll it, read each item's result. One implementation
 * per provider (runner/batch/openai_batch.ts, runner/batch/anthropic_batch.ts);
 * docs/batch.md says how each maps onto the log.
 *
 * Everything a provider answers is untrusted: a control call that fails is a
 * {@linkcode BatchCallError} (the batcher turns it into rows, never a lost
 * run), and a results line that cannot be read becomes that item's
 * `invalid_response`.
 *
 * @module
 */
import type { Outcome } from "../../schema/mod.ts";

/** One item to submit: its id inside the batch and the route dialect's whole (unstreamed) request body. */
export interface BatchItemIn {
  customId: string;
  /** JSON text, as the route's dialect `body()` built it with `stream: false`. */
  body: string;
}

/**
 * One item's result as the provider gave it:
 * - `answer`: a whole answer body in the route's dialect (read by the dialect's `feedBody`), with the HTTP status the
 *   provider says it had (OpenAI `response.status_code`; Anthropic `succeeded` is the Messages API's 200);
 * - `error_status`: an error answer with its HTTP status and body (judged by the dialect's `classifyError`);
 * - `failed`: the item ended without an answer (errored, expired, canceled, unreadable): its outcome and error_kind.
 */
export type BatchItemResult =
  | { kind: "answer"; status: number; body: string }
  | { kind: "error_status"; status: number; body: string }
  | { kind: "failed"; outcome: Outcome; errorKind: string; status: number | null };

/** A batch's state as one poll read it. */
export interface BatchPoll {
  /** The provider's status word (OpenAI `status`, Anthropic `processing_status`). */
  status: string;
  /** The batch will change no more: its results can be read. */
  ended: boolean;
  /** The provider's `request_counts` (numbers only), or null when absent. */
  counts: Record<string, number> | null;
  /** What {@linkcode BatchProvider.results} needs (file ids, the results URL…). */
  handle: unknown;
}

/** One provider's batch API. */
export interface BatchProvider {
  /** Submits the items as one batch; resolves with the provider's batch id. */
  submit(items: readonly BatchItemIn[], signal: AbortSignal): Promise<string>;
  /** Reads the batch's state. */
  poll(id: string, signal: AbortSignal): Promise<BatchPoll>;
  /**
   * The results of an ended batch by custom id. An item absent from the map had no result line; `missing` says what
   * such an item becomes (a completed batch's missing item is `invalid_response` `batch_item_missing`; an expired
   * batch's unfinished one `timeout` `batch_expired`…).
   */
  results(poll: BatchPoll, signal: AbortSignal): Promise<{
    items: Map<string, BatchItemResult>;
    missing: { outcome: Outcome; errorKind: string };
  }>;
}

/** A control call (upload, create, poll, download) that failed: its HTTP status (null: no answer) and why. */
export class BatchCallError extends Error {
  constructor(
    /** What was being done: `upload`, `create`, `poll`, `download`. */
    readonly step: string,
    readonly status: number | null,
    /** The answer's body (cut to 64 KiB) when there was one, for the dialect to judge. */
    readonly body: string,
    message: string,
    /** No answer came (the connection failed, timed out or was cut): a `transport_error`, not a bad answer. */
    readonly transport = false,
  ) {
    super(message);
  }
}

/** Most bytes of a control call's answer read (a results file of a large batch fits; a runaway one does not). */
export const MAX_BATCH_ANSWER_BYTES = 512 * 1024 * 1024;

/** Ms a control call may take before it is abandoned (it is retried at the next poll; a submit is not). */
export const BATCH_CALL_TIMEOUT_MS = 120_000;

/**
 * Makes one control call and returns its body as text; a transport failure, a non-2xx answer or an over-long body is a
 * {@linkcode BatchCallError}. The route's key header goes only to `url`'s origin, which the caller has checked.
 */
export async function batchCall(
  step: string,
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: BodyInit },
  signal: AbortSignal,
): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      signal: AbortSignal.any([signal, AbortSignal.timeout(BATCH_CALL_TIMEOUT_MS)]),
    });
  } catch (e) {
    const why = `${step}: ${(e as Error).name}: ${(e as Error).message}`.slice(0, 300);
    throw new BatchCallError(step, null, "", why, true);
  }
  const text = await readText(res, step);
  if (res.status < 200 || res.status >= 300) {
    throw new BatchCallError(step, res.status, text.slice(0, 65_536), `${step}: HTTP ${res.status}`);
  }
  return text;
}

async function readText(res: Response, step: string): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > MAX_BATCH_ANSWER_BYTES) {
    await res.body?.cancel();
    throw new BatchCallError(step, null, "", `${step}: answer of ${declared} bytes is over the cap`);
  }
  try {
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > MAX_BATCH_ANSWER_BYTES) {
      throw new BatchCallError(step, null, "", `${step}: answer over ${MAX_BATCH_ANSWER_BYTES} bytes`);
    }
    return new TextDecoder().decode(bytes);
  } catch (e) {
    if (e instanceof BatchCallError) throw e;
    throw new BatchCallError(step, null, "", `${step}: body cut: ${(e as Error).message}`.slice(0, 300), true);
  }
}

/** The JSON object a control call answered, or a {@linkcode BatchCallError} naming the step. */
export function jsonObject(step: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new BatchCallError(step, null, "", `${step}: answer is not JSON: ${text.slice(0, 60)}`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new BatchCallError(step, null, "", `${step}: answer is not a JSON object`);
  }
  return v as Record<string, unknown>;
}

/** The numeric fields of an untrusted `request_counts` object (others dropped), or null. */
export function readCounts(v: unknown): Record<string, number> | null {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v as Record<string, unknown>)) {
    if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 && /^[a-z_]{1,40}$/.test(k)) out[k] = n;
  }
  return out;
}

/** Each non-empty line of a JSONL text parsed, or null for a line that is not a JSON object. */
export function jsonLines(text: string): (Record<string, unknown> | null)[] {
  const out: (Record<string, unknown> | null)[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line);
      out.push(v !== null && typeof v === "object" && !Array.isArray(v) ? v : null);
    } catch {
      out.push(null);
    }
  }
  return out;
}

/**
 * A batch id or file id as a path segment: the provider's own characters only (an id with `/`, `?` or `..` would
 * address another resource with the route's key).
 */
export function safeId(step: string, v: unknown): string {
  if (typeof v === "string" && /^[A-Za-z0-9_.:-]{1,200}$/.test(v) && !v.includes("..")) return v;
  throw new BatchCallError(step, null, "", `${step}: id ${JSON.stringify(v)?.slice(0, 60)} is not a plain id`);
}
