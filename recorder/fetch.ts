/**
 * A `fetch` that records the model calls of the current task: inside `task.run(...)`, every POST whose URL path ends
 * with `/chat/completions` or `/completions` is one attempt of that task (recorder/types.ts `Attempt`) — its model,
 * stream flag and provider, the response head, each content event of an SSE stream (its first is the attempt's first
 * token), the usage and finish reason, and how it ended, with the runner's error names. Everything else, and every
 * call outside a task or of an unsampled task, is the plain `base` fetch.
 *
 * The app's response and errors reach it unchanged: the same status, headers and bytes (a streamed body is passed
 * through a stream that reads each chunk as the app reads it, never ahead of it and never holding it back), the same
 * rejection. A failure of the recording itself is caught and given to `onError`; it never reaches the app.
 *
 * With the official `openai` client, pass it as the client's `fetch`: the client's own retries (`maxRetries`) are
 * then separate attempts of the same round, correlated to the one user action.
 *
 * ```ts ignore
 * const client = new OpenAI({ baseURL, apiKey, fetch: recordingFetch(rec) });
 * app.post("/chat", (req) => rec.begin({ class: "chat" }).run(() => answer(client, req)));
 * ```
 *
 * Rounds: a call whose conversation (`messages`, or `prompt`) is the previous call's of the same task is in the same
 * round (a retry or a fallback sends the same conversation); a call with another conversation starts the next round
 * (a tool loop sends the conversation grown by the tool results).
 *
 * @module
 */
import { recordedServiceMode, SERVICE_MODE_HEADER } from "../schema/service_mode.ts";
import { bodyErrorKind, parseRetryAfter, readJsonAnswer, sendErrorKind, SseReading } from "./_chat_reading.ts";
import type { Attempt, AttemptEnd, Recorder, Task } from "./types.ts";

/** Options of {@linkcode recordingFetch}. */
export interface RecordingFetchOptions {
  /** attempts.provider. @default the URL's host (`api.openai.com`, `127.0.0.1:8787`) */
  provider?: string;
  /** attempts.route. @default the recorder's route */
  route?: string;
  /** Called with each failure of the recording (never thrown into the app). */
  onError?: (error: unknown) => void;
}

/** What the request says, read before it is sent. */
interface Call {
  model: string | undefined;
  stream: boolean;
  provider: string;
  /** The conversation, to tell a retry (same) from the next round (another). */
  conversation: string;
}

const MODEL_PATH = /\/(chat\/)?completions$/;

/** The body of a request as text, when it can be read without consuming what the app sends. */
async function bodyText(input: string | URL | Request, init: RequestInit | undefined): Promise<string | null> {
  const body = init?.body ?? null;
  if (typeof body === "string") return body;
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  if (ArrayBuffer.isView(body)) return new TextDecoder().decode(body);
  if (body instanceof Blob) return await body.text();
  if (body === null && input instanceof Request && input.body !== null) return await input.clone().text();
  return null;
}

/** The call's description, or null when it is not a model call. */
async function describe(input: string | URL | Request, init: RequestInit | undefined, provider?: string) {
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const url = new URL(input instanceof Request ? input.url : input);
  if (method !== "POST" || !MODEL_PATH.test(url.pathname)) return null;
  const text = await bodyText(input, init);
  let parsed: Record<string, unknown> = {};
  try {
    const v = text === null ? null : JSON.parse(text);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) parsed = v;
  } catch {
    // Not JSON: the call is still sent as it is and recorded without a model.
  }
  const conversation = parsed.messages ?? parsed.prompt;
  return {
    model: typeof parsed.model === "string" ? parsed.model : undefined,
    stream: parsed.stream === true,
    provider: provider ?? url.host,
    conversation: conversation === undefined ? text ?? "" : JSON.stringify(conversation),
  } satisfies Call;
}

/**
 * A `fetch` recording the model calls of `rec`'s current task (see the module doc).
 *
 * @example Outside a task it is the plain fetch
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingFetch } from "./fetch.ts";
 * import type { Recorder } from "./types.ts";
 * const rec = { current: () => undefined } as unknown as Recorder;
 * const base = (() => Promise.resolve(new Response("hi"))) as typeof fetch;
 * const res = await recordingFetch(rec, base)("http://127.0.0.1:1/v1/chat/completions", { method: "POST" });
 * assert.equal(await res.text(), "hi");
 * ```
 */
export function recordingFetch(
  rec: Recorder,
  base: typeof fetch = fetch,
  options: RecordingFetchOptions = {},
): typeof fetch {
  const rounds = new WeakMap<Task, { conversation: string; round: number }>();
  const report = (e: unknown) => {
    try {
      options.onError?.(e);
    } catch {
      // The app's error handler failed too: nothing more can be done without reaching the app.
    }
  };
  const safely = (fn: () => void) => {
    try {
      fn();
    } catch (e) {
      report(e);
    }
  };

  return async function recordedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    let task: Task | undefined;
    let call: Call | null = null;
    let attempt: Attempt | undefined;
    try {
      task = rec.current();
      if (task?.sampled) call = await describe(input, init, options.provider);
      if (task && call) {
        const last = rounds.get(task);
        const round = last === undefined ? 0 : last.conversation === call.conversation ? last.round : last.round + 1;
        rounds.set(task, { conversation: call.conversation, round });
        attempt = task.attempt({
          ...(options.route !== undefined ? { route: options.route } : {}),
          provider: call.provider,
          ...(call.model !== undefined ? { model: call.model } : {}),
          round,
          streamed: call.stream,
        });
      }
    } catch (e) {
      report(e);
    }
    if (!attempt || !call) return base(input, init);
    const rec1 = attempt;
    let res: Response;
    try {
      res = await base(input, init);
    } catch (e) {
      safely(() => rec1.end({ ok: false, http_status: null, error_kind: sendErrorKind(e) }));
      throw e;
    }
    try {
      return watch(res, call, rec1, safely);
    } catch (e) {
      report(e);
      return res;
    }
  };
}

/** Records the answer's head now and its body as it is read; returns what the app gets. */
function watch(res: Response, call: Call, attempt: Attempt, safely: (fn: () => void) => void): Response {
  safely(() => attempt.headers(res.status));
  const head: Pick<AttemptEnd, "http_status" | "retry_after_ms" | "service_mode"> = {
    http_status: res.status,
    retry_after_ms: parseRetryAfter(res.headers.get("retry-after")),
    service_mode: recordedServiceMode(res.headers.get(SERVICE_MODE_HEADER)),
  };
  let ended = false;
  const end = (e: Omit<AttemptEnd, keyof typeof head>) => {
    if (ended) return;
    ended = true;
    safely(() => attempt.end({ ...head, ...e }));
  };
  if (res.status < 200 || res.status >= 300) {
    end({ ok: false, error_kind: res.status === 429 ? "http_429" : `http_${res.status}` });
    return res;
  }
  const type = res.headers.get("content-type") ?? "";
  if (call.stream && type.includes("text/event-stream") && res.body) return streamed(res, attempt, end, safely);
  if (call.stream || !type.includes("json")) {
    end({ ok: false, error_kind: "bad_content_type" });
    return res;
  }
  // A whole JSON answer: a copy is read beside the app's; its one token arrives with its end.
  res.clone().text().then(
    (text) => {
      const a = readJsonAnswer(text);
      if (a.ok) safely(() => attempt.token());
      end({ ok: a.ok, error_kind: a.ok ? null : "invalid_json", usage: a.usage, finish_reason: a.finishReason });
    },
    (e) => end({ ok: false, error_kind: bodyErrorKind(e) }),
  );
  return res;
}

/**
 * The app's response with its SSE body passed through a reader that sees each chunk as the app reads it. (A
 * ReadableStream pulled on demand rather than a TransformStream: its `cancel` tells the recorder the app stopped
 * reading, in every runtime, and it reads nothing ahead of the app.)
 */
function streamed(
  res: Response,
  attempt: Attempt,
  end: (e: Omit<AttemptEnd, "http_status" | "retry_after_ms" | "service_mode">) => void,
  safely: (fn: () => void) => void,
): Response {
  const reader = res.body!.getReader();
  const sse = new SseReading();
  const summary = (cut: boolean) => {
    const complete = sse.done || sse.finishReason !== null;
    const kind = sse.malformed !== null ? "malformed_sse" : !complete ? (cut ? "aborted" : "stream_incomplete") : null;
    end({ ok: kind === null, error_kind: kind, usage: sse.usage, finish_reason: sse.finishReason });
  };
  const tokens = (n: number) => {
    for (let i = 0; i < n; i++) safely(() => attempt.token());
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        end({ ok: false, error_kind: bodyErrorKind(e), usage: sse.usage, finish_reason: sse.finishReason });
        controller.error(e);
        return;
      }
      if (r.done) {
        controller.close();
        safely(() => tokens(sse.end()));
        safely(() => summary(false));
        return;
      }
      controller.enqueue(r.value);
      safely(() => tokens(sse.push(r.value)));
    },
    cancel(reason) {
      safely(() => summary(true));
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  // A new Response has no URL of its own: the app sees the one it fetched.
  Object.defineProperty(out, "url", { value: res.url });
  Object.defineProperty(out, "redirected", { value: res.redirected });
  return out;
}
