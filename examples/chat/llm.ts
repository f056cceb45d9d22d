/**
 * The chat app's model call: a streamed OpenAI-compatible Chat Completions request (here to the simulator), each
 * token handed on as it arrives, retried on a 429, a 5xx or a lost connection while nothing has reached the user.
 * Each call is recorded as an attempt of the current task.
 *
 * @module
 */
import type { Task, Usage } from "../../recorder/types.ts";

/** Options of {@linkcode streamChat}. */
export interface ChatCall {
  /** The server's base URL (`http://127.0.0.1:PORT`). */
  url: string;
  model: string;
  messages: { role: "system" | "user"; content: string }[];
  max_tokens: number;
  /** The task the calls are recorded in. */
  task: Task;
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

/** A failed call the caller may retry. */
class CallError extends Error {
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
    const attempt = call.task.attempt({ model: call.model, streamed: true });
    try {
      const { finish_reason, usage } = await oneCall(call, attempt, (t) => {
        output += t;
        call.onToken(t);
      });
      attempt.end({ ok: true, http_status: 200, usage, finish_reason });
      return { output, finish_reason, calls: i + 1 };
    } catch (e) {
      const err = e instanceof CallError ? e : new CallError("transport_error", null, null);
      const retry = i < retries && output === "" && (err.status === null || err.status === 429 || err.status >= 500);
      const backoff = retry ? err.retryAfterMs ?? 200 * 2 ** i : null;
      attempt.end({
        ok: false,
        http_status: err.status,
        error_kind: err.kind,
        retry_reason: retry ? err.kind : null,
        backoff_ms: backoff,
        retry_after_ms: err.retryAfterMs,
      });
      if (!retry) throw err;
      await sleep(backoff!);
    }
  }
}

/** One call: its status, then its SSE stream read to `[DONE]`. */
async function oneCall(
  call: ChatCall,
  attempt: ReturnType<Task["attempt"]>,
  onToken: (text: string) => void,
): Promise<{ finish_reason: string | null; usage: Usage | null }> {
  const res = await fetch(`${call.url}/v1/chat/completions`, {
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
  attempt.headers(res.status);
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    const after = Number(res.headers.get("retry-after"));
    const kind = res.status === 429 ? "rate_limited" : res.status >= 500 ? "server_error" : "http_error";
    throw new CallError(kind, res.status, after > 0 ? after * 1000 : null);
  }
  let finish_reason: string | null = null;
  let usage: Usage | null = null;
  let buffered = "";
  for await (const text of res.body.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const chunk = JSON.parse(line.slice(6));
      const choice = chunk.choices?.[0];
      if (choice?.delta?.content) {
        attempt.token();
        onToken(choice.delta.content);
      }
      finish_reason = choice?.finish_reason ?? finish_reason;
      if (chunk.usage) {
        usage = {
          input_tokens: chunk.usage.prompt_tokens,
          output_tokens: chunk.usage.completion_tokens,
          cached_input_tokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
        };
      }
    }
  }
  if (finish_reason === null) throw new CallError("truncated_stream", res.status, null);
  return { finish_reason, usage };
}
