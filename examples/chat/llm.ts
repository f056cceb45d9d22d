/**
 * The chat app's model call: a streamed OpenAI-compatible Chat Completions request (here to the simulator), each
 * token handed on as it arrives, retried on a 429, a 5xx or a lost connection while nothing has reached the user.
 * The app passes the recorder's `recordingFetch`: called inside `task.run`, each call is recorded as an attempt of
 * the task (its status, tokens, usage; a retry is a second attempt of the same round).
 *
 * @module
 */

/** Options of {@linkcode streamChat}. */
export interface ChatCall {
  /** The server's base URL (`http://127.0.0.1:PORT`). */
  url: string;
  model: string;
  messages: { role: "system" | "user"; content: string }[];
  max_tokens: number;
  /** The fetch to call with (the recorder's `recordingFetch(rec)`). */
  fetch: typeof fetch;
  /** Each content token, as it arrives. */
  onToken(text: string): void;
  /** Retries after the first call. @default 2 */
  retries?: number;
}

/** The answer: its text, why it ended, and how many calls it took. */
export interface ChatAnswer {
  output: string;
  finish_reason: string | null;
  calls: number;
}

/** A failed call: its kind and HTTP status (null: no answer). */
export class CallError extends Error {
  constructor(readonly kind: string, readonly status: number | null, readonly retryAfterMs: number | null) {
    super(status === null ? kind : `${kind} (HTTP ${status})`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Streams one answer. Retries (exponential backoff from 200 ms, or the server's Retry-After) only while no token
 * has been handed on: a token the user may already see cannot be taken back.
 */
export async function streamChat(call: ChatCall): Promise<ChatAnswer> {
  const retries = call.retries ?? 2;
  let output = "";
  for (let i = 0;; i++) {
    try {
      const finish_reason = await oneCall(call, (t) => {
        output += t;
        call.onToken(t);
      });
      return { output, finish_reason, calls: i + 1 };
    } catch (e) {
      const err = e instanceof CallError ? e : new CallError("transport_error", null, null);
      const retry = i < retries && output === "" && (err.status === null || err.status === 429 || err.status >= 500);
      if (!retry) throw err;
      await sleep(err.retryAfterMs ?? 200 * 2 ** i);
    }
  }
}

/** One call: its status, then its SSE stream read to its end; gives the finish reason. */
async function oneCall(call: ChatCall, onToken: (text: string) => void): Promise<string> {
  const res = await call.fetch(`${call.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: call.model,
      messages: call.messages,
      max_tokens: call.max_tokens,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    const after = Number(res.headers.get("retry-after"));
    const kind = res.status === 429 ? "rate_limited" : res.status >= 500 ? "server_error" : "http_error";
    throw new CallError(kind, res.status, after > 0 ? after * 1000 : null);
  }
  let finish: string | null = null;
  let buffered = "";
  for await (const text of res.body.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const choice = JSON.parse(line.slice(6)).choices?.[0];
      if (choice?.delta?.content) onToken(choice.delta.content);
      finish = choice?.finish_reason ?? finish;
    }
  }
  if (finish === null) throw new CallError("truncated_stream", res.status, null);
  return finish;
}
