/**
 * One call to the judge's chat-completions endpoint: the request sent, the answer read (at most
 * {@linkcode MAX_JUDGE_RESPONSE_BYTES}), and what happened as data — the status, the reply's text and usage, the wait
 * a 429 or 503 asked for — never an exception. Only the `--target` host is ever called: the URL is checked against
 * its allow-list and redirects are not followed.
 *
 * @module
 */
import { z } from "zod";
import { NetAllowError, type NetAllowList } from "../net_allow.ts";
import { parseRetryAfter } from "../retry.ts";
import { scrubUrl } from "../target_url.ts";

/** The most bytes one judge response may carry; a larger one is cut and counted a failed call. */
export const MAX_JUDGE_RESPONSE_BYTES = 4 * 1024 * 1024;

/** What one call is sent with. */
export interface JudgeCallRequest {
  url: URL;
  allow: NetAllowList;
  /** The API key, or null to send none. */
  key: string | null;
  /** The JSON request body. */
  body: string;
  timeoutMs: number;
  /** Aborted when the judge is stopped. */
  signal: AbortSignal;
}

/** How one call ended. */
export interface JudgeCallResult {
  /** From the send to the end of the answer (or the failure), ms. */
  ms: number;
  /** The HTTP status, or null when none arrived. */
  status: number | null;
  /**
   * null when a 2xx chat completion arrived (its text is in `text`); else what failed: `http_<status>`, `timeout`,
   * `transport_error`, `response_too_large`, `bad_response` (2xx but not a chat completion) or `stopped`.
   */
  failure: string | null;
  /** One line about the failure (secrets of the URL replaced), or null. */
  detail: string | null;
  /** The first choice's message content (2xx only). */
  text: string | null;
  /**
   * The reply's usage: prompt and completion tokens; null when a 2xx reply carried none. A call without a reply
   * (an error status, a timeout, a transport error) has `reply: false` and 0 tokens: nothing was answered to count.
   */
  usage: { input_tokens: number; output_tokens: number } | null;
  /** A 2xx answer arrived. */
  reply: boolean;
  /** The wait a 429 or 503 asked for (Retry-After, retry-after-ms), ms; null otherwise. */
  retryAfterMs: number | null;
}

const Completion = z.looseObject({
  choices: z.array(z.looseObject({ message: z.looseObject({ content: z.string().nullable().optional() }) })).min(1),
});
const Usage = z.looseObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});

/**
 * Sends one judge call and reads its answer.
 *
 * @example A refused host is a failed call, not a throw
 * ```ts
 * import { judgeCall } from "./call.ts";
 * import { NetAllowList } from "../net_allow.ts";
 * import assert from "node:assert/strict";
 * const r = await judgeCall({
 *   url: new URL("http://127.0.0.9:9/v1/chat/completions"),
 *   allow: new NetAllowList([new URL("http://127.0.0.1:1/")]),
 *   key: null, body: "{}", timeoutMs: 1000, signal: new AbortController().signal,
 * });
 * assert.equal(r.failure, "refused_host");
 * ```
 */
export async function judgeCall(req: JudgeCallRequest): Promise<JudgeCallResult> {
  const start = performance.now();
  const base = { status: null, detail: null, text: null, usage: null, reply: false, retryAfterMs: null };
  // A provider may echo the key in an error body: it never reaches a line or a file.
  const scrub = (s: string | null | undefined) => s && req.key ? s.replaceAll(req.key, "REDACTED") : s ?? null;
  const end = (r: Partial<JudgeCallResult> & { failure: string | null }): JudgeCallResult => ({
    ...base,
    ...r,
    detail: scrub(r.detail),
    ms: performance.now() - start,
  });
  try {
    req.allow.check(req.url);
  } catch (e) {
    if (e instanceof NetAllowError) return end({ failure: "refused_host", detail: e.message });
    throw e;
  }
  // A timer of our own (cleared at the end), so that no timer outlives the call.
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, req.timeoutMs);
  const onStop = () => ctl.abort();
  req.signal.addEventListener("abort", onStop, { once: true });
  if (req.signal.aborted) ctl.abort();
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (req.key !== null) headers.authorization = `Bearer ${req.key}`;
  const failed = (e: unknown) => {
    if (timedOut) return end({ failure: "timeout", detail: `no complete answer within ${req.timeoutMs} ms` });
    if (req.signal.aborted) return end({ failure: "stopped" });
    return end({ failure: "transport_error", detail: scrubUrl((e as Error)?.message ?? String(e), req.url) });
  };
  let res: Response;
  let body: string;
  try {
    try {
      res = await fetch(req.url, { method: "POST", headers, body: req.body, signal: ctl.signal, redirect: "manual" });
    } catch (e) {
      return failed(e);
    }
    try {
      body = await cappedText(res);
    } catch (e) {
      if (e instanceof TooLarge) return end({ status: res.status, failure: "response_too_large", detail: e.message });
      return failed(e);
    }
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onStop);
  }
  if (res.status < 200 || res.status > 299) {
    const retryAfterMs = res.status === 429 || res.status === 503 ? retryAfterOf(res.headers) : null;
    return end({ status: res.status, failure: `http_${res.status}`, detail: body.slice(0, 200), retryAfterMs });
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    value = undefined;
  }
  const completion = Completion.safeParse(value);
  const usage = Usage.safeParse((value as { usage?: unknown } | undefined)?.usage);
  const counted = usage.success
    ? { input_tokens: usage.data.prompt_tokens, output_tokens: usage.data.completion_tokens }
    : null;
  if (!completion.success) {
    return end({
      status: res.status,
      failure: "bad_response",
      detail: body.slice(0, 200),
      usage: counted,
      reply: true,
    });
  }
  const text = completion.data.choices[0]!.message.content ?? "";
  return end({ status: res.status, failure: null, text, usage: counted, reply: true });
}

/** Retry-After as ms: `retry-after-ms` when given, else `retry-after` (seconds or an HTTP date). */
function retryAfterOf(headers: Headers): number | null {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  return parseRetryAfter(headers.get("retry-after"));
}

class TooLarge extends Error {}

async function cappedText(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_JUDGE_RESPONSE_BYTES) {
      await reader.cancel();
      throw new TooLarge(`the response is larger than ${MAX_JUDGE_RESPONSE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(out);
}
