import { SERVICE_MODE_HEADER, type SimProfile } from "../schema/mod.ts";
import { parseChatRequest } from "./chat_request.ts";
import type { Engine } from "./engine.ts";
import { degradedModeAt, shortened } from "./degraded_mode.ts";
import type { IntakeSwitch } from "./intake.ts";
import { PROMPT_COUNT_STOPPED, type PromptCounter } from "./prompt_counter.ts";
import { MAX_TOKENIZED_CHARS, MAX_TOKENIZER_WORK } from "../schema/tokenizer_bound.ts";
import { ChunkFormat, errorResponse, usage, type UsageDetails } from "./openai_format.ts";
import type { RateLimiter, RateLimitRefusal } from "./rate_limiter.ts";
import type { Answer, Responder } from "./responder.ts";
import type { SimSequence } from "./sequence.ts";

/** What the chat endpoint needs from the running sim. */
export interface ChatContext {
  profile: SimProfile;
  engine: Engine;
  responder: Responder;
  /** Counts prompt tokens inline or in a worker (never a long stall of the event loop). */
  counter: PromptCounter;
  /** The profile's quota, or null when it has none. */
  rateLimiter: RateLimiter | null;
  /** The outage mode in force, or null. */
  outage(): "503" | "refuse" | null;
  /** The operator's intake switch (`POST /admin/intake`). */
  intake: IntakeSwitch;
  /** The next uniform draw of the sim's seeded PRNG. */
  draw(): number;
  /** A fresh request number. */
  nextId(): number;
  /** Ends every request in flight (sim stop): streams are cut, waiting ones get 503. */
  readonly live: Set<() => void>;
}

const encoder = new TextEncoder();

/** The error a stream in flight is cut with when the sim stops. */
export const STOPPED = "simulator stopped";

/**
 * `POST /v1/chat/completions`: faults first (outage 503, a new task while
 * intake is stopped 503 + Retry-After, then `error_rate` 500, all before
 * admission), then the answer is decided, the rate limits
 * are checked (429 quota, never queued), and the request is offered to the
 * engine. Headers go out only when it is admitted, so a
 * request shed from the queue still gets a clean 429.
 *
 * The prompt's tokens are counted after the draws and the `error_rate` fault (sim/prompt_counter.ts: inline when
 * small, else in a worker while other requests are answered); the queue's degraded state and the service mode are
 * judged at arrival, before the count. A prompt over the tokenizer bound gets 400 `prompt_too_complex`.
 */
export async function handleChat(req: Request, ctx: ChatContext): Promise<Response> {
  if (ctx.outage() === "503") {
    ctx.engine.countError();
    return errorResponse(503, "The server is temporarily unavailable (simulated outage).", {
      type: "server_error",
      code: "service_unavailable",
    });
  }
  let body: unknown;
  try {
    body = await req.json();
  } catch (e) {
    return errorResponse(400, `Request body is not valid JSON: ${(e as Error).message}`, {
      type: "invalid_request_error",
      code: "invalid_json",
    });
  }
  const parsed = parseChatRequest(body);
  if (!parsed.ok) {
    return errorResponse(400, parsed.message, {
      type: "invalid_request_error",
      code: "invalid_value",
      param: parsed.param,
    });
  }
  const chat = parsed.value;
  // Intake stopped by the operator: a new task is refused before any draw; later rounds of tasks in flight go on.
  const stopped = ctx.intake.refusal(chat.messages);
  if (stopped) return stopped;
  // Always four draws per accepted request, so the sequence depends only on the seed and arrival order.
  const uError = ctx.draw(), accuracy = ctx.draw(), validity = ctx.draw(), variant = ctx.draw();
  const { profile, engine } = ctx;
  if (uError < profile.faults.error_rate) {
    engine.countError();
    return errorResponse(500, "The server had an error while processing your request (simulated).", {
      type: "server_error",
      code: "internal_error",
    });
  }
  const cap = chat.maxTokens ?? profile.engine.default_max_tokens;
  const degraded = engine.queue.length > profile.behaviour.degraded.queue_len_threshold;
  // An announced degraded mode, judged at arrival: a shorter answer, said in x-service-mode.
  const dm = profile.degraded_mode;
  const mode = dm ? degradedModeAt(dm, engine.snapshot()) : null;
  const counted = await ctx.counter.count(ctx.responder.countedTexts(chat.messages));
  if ("refused" in counted) {
    return errorResponse(
      400,
      `The prompt is over the simulator's tokenizer bound (${counted.refused}; at most ${MAX_TOKENIZED_CHARS} ` +
        `characters and BPE work, the sum over pre-token pieces of their UTF-8 length squared, of at most ` +
        `${MAX_TOKENIZER_WORK}), so its tokens ` +
        `are not counted; a long run of one character without spaces is the usual cause.`,
      { type: "invalid_request_error", code: "prompt_too_complex", param: "messages" },
    );
  }
  if ("failed" in counted) {
    return counted.failed === PROMPT_COUNT_STOPPED
      ? errorResponse(503, "The simulator is stopping.", { type: "server_error", code: "service_unavailable" })
      : errorResponse(500, `The simulator could not count the prompt: ${counted.failed}.`, {
        type: "server_error",
        code: "internal_error",
      });
  }
  const decided = ctx.responder.respond(chat.messages, { accuracy, validity, variant }, {
    maxTokens: cap,
    degraded,
    prefixCaching: profile.engine.prefix_caching,
  }, counted.tokens);
  const answer = dm && mode ? shortened(decided, dm.max_output_tokens) : decided;
  const kvTokens = answer.promptTokens + cap;
  if (!engine.fits(kvTokens)) {
    return errorResponse(
      400,
      `This request needs ${kvTokens} tokens (prompt ${answer.promptTokens} + max_tokens ${cap}); a replica holds ${profile.engine.max_kv_tokens}.`,
      { type: "invalid_request_error", code: "context_length_exceeded", param: "messages" },
    );
  }
  const refused = ctx.rateLimiter?.admit(kvTokens) ?? null;
  if (refused) {
    engine.countRateLimited();
    return rateLimitResponse(refused, kvTokens);
  }
  return await serve(req, ctx, answer, {
    cap,
    stream: chat.stream,
    includeUsage: chat.includeUsage,
    model: chat.model,
    mode,
  });
}

/** How one answer is served: its token cap, streamed or not, with usage or not, the model named and the service mode. */
interface ServeOptions {
  cap: number;
  stream: boolean;
  includeUsage: boolean;
  model: string;
  mode: string | null;
}

function serve(req: Request, ctx: ChatContext, answer: Answer, o: ServeOptions): Promise<Response> {
  const { cap, stream, includeUsage, model, mode } = o;
  const n = ctx.nextId();
  const id = `chatcmpl-sim-${n}`;
  const callId = `call_sim_${n}`;
  const created = Math.floor(Date.now() / 1000);
  const out = answer.output;
  // Hidden reasoning is decoded first and counts against max_tokens; only the rest is visible.
  const planned = (answer.reasoningTokens ?? 0) + out.pieces.length;
  const outputTokens = Math.min(planned, cap);
  const hidden = Math.min(answer.reasoningTokens ?? 0, outputTokens);
  const visible = outputTokens - hidden;
  const finish = planned > cap ? "length" : answer.finishReason;
  const u = usage(answer.promptTokens, outputTokens, answer.cachedTokens, usageDetails(ctx.profile, answer, hidden));
  const headers = {
    "x-request-id": id,
    "x-sim-case-id": answer.caseId ?? "",
    "x-sim-verdict": answer.verdict + (answer.brokenJson ? "+broken_json" : ""),
    ...(mode ? { [SERVICE_MODE_HEADER]: mode } : {}),
  };
  const fmt = new ChunkFormat(id, model, created);
  const tail = fmt.finish(finish) + (includeUsage ? fmt.usage(u) : "") + ChunkFormat.DONE;
  const nameTokens = out.kind === "tool_call" ? out.nameTokens : 0;
  const tokenLine = (step: number): string => {
    const i = step - hidden;
    if (i < 0) return "";
    if (out.kind === "text") return fmt.content(out.pieces[i]!);
    if (i === 0) return fmt.toolCallStart(callId, out.name);
    return i < nameTokens ? "" : fmt.toolCallArguments(out.pieces[i]!);
  };

  const { promise, resolve: settle } = Promise.withResolvers<Response>();
  const end = () => ctx.live.delete(terminate);
  let listening = false;
  const onAbort = () => {
    ctx.engine.cancel(seq);
    resolve(errorResponse(499, "Client closed the request.", { type: "invalid_request_error", code: "client_closed" }));
  };
  const resolve = (r: Response) => {
    if (listening) req.signal.removeEventListener("abort", onAbort);
    if (!stream || r.status !== 200) end();
    settle(r);
  };
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  // Deno's body writer takes an enqueued chunk at once; when the client is gone, it cancels the stream inside
  // enqueue (the source's cancel() below runs and `open` turns false), so `open` is read again before close.
  const write = (text: string, close: boolean) => {
    if (open && controller && text) controller.enqueue(encoder.encode(text));
    if (open && controller && close) {
      open = false;
      end();
      controller.close();
    }
  };
  const terminate = () => {
    // The engine has stopped (sim stop): nothing to free, and the client did not leave.
    seq.cancelled = true;
    if (open && controller) {
      open = false;
      controller.error(new Error(STOPPED));
    }
    settle(errorResponse(503, "The simulator is stopping.", { type: "server_error", code: "service_unavailable" }));
  };
  ctx.live.add(terminate);
  const seq: SimSequence = {
    id: n,
    prefillTokens: answer.promptTokens - answer.cachedTokens,
    kvTokens: answer.promptTokens + cap,
    outputTokens,
    cancelled: false,
    onAdmit() {
      if (!stream) return;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
        },
        // The client went away (or stopped reading) before the answer was complete: the engine drops the
        // sequence, frees its slot and KV, and counts it client_closed. After the last chunk it is finished.
        cancel() {
          if (!open) return;
          open = false;
          end();
          ctx.engine.cancel(seq);
        },
      });
      resolve(
        new Response(body, {
          headers: { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" },
        }),
      );
      write(fmt.role(), false);
    },
    onToken(i) {
      // The last token, the finish chunk, usage and [DONE] leave in one write.
      if (stream) write(tokenLine(i) + (i === outputTokens - 1 ? tail : ""), i === outputTokens - 1);
    },
    onFinish() {
      if (stream) {
        if (outputTokens === 0) write(tail, true);
        return;
      }
      resolve(
        Response.json(completion(answer, { id, created, model, outputTokens: visible, finish, callId, usage: u }), {
          headers,
        }),
      );
    },
    onShed(reason) {
      resolve(shedResponse(ctx.profile, reason === "queue_full" ? "queue is full" : "waited too long in the queue"));
    },
  };
  const where = ctx.engine.submit(seq);
  if (where === "shed") resolve(shedResponse(ctx.profile, "queue is full"));
  // A queued client that goes away is dropped from the queue. Only queued requests listen: Deno's legacy
  // request.signal also fires after a successful response and warns once when it was used.
  if (where === "queued") {
    listening = true;
    req.signal.addEventListener("abort", onAbort, { once: true });
  }
  return promise;
}

function shedResponse(profile: SimProfile, why: string): Response {
  return errorResponse(429, `The server is overloaded (${why}); retry later.`, {
    type: "rate_limit_error",
    code: "overloaded",
    headers: { "retry-after": String(profile.queue.retry_after_s) },
  });
}

/** A hosted API's quota error: 429 `rate_limit_exceeded`, apart from the queue's `overloaded`. */
function rateLimitResponse(r: RateLimitRefusal, tokens: number): Response {
  const unit = r.kind === "requests" ? "requests per min (RPM)" : "tokens per min (TPM)";
  const headers: Record<string, string> = {
    [`x-ratelimit-limit-${r.kind}`]: String(r.limit),
    [`x-ratelimit-remaining-${r.kind}`]: String(r.remaining),
  };
  let message = `Rate limit reached for ${unit}: Limit ${r.limit}, Remaining ${r.remaining}`;
  if (r.retryAfterMs === null) message = `Request too large for ${unit}: Limit ${r.limit}, Requested ${tokens}`;
  else {
    // Whole seconds, rounded up, like hosted APIs: waiting that long always fits.
    headers["retry-after"] = String(Math.max(1, Math.ceil(r.retryAfterMs / 1000)));
    headers["retry-after-ms"] = String(r.retryAfterMs);
    message += `. Please try again in ${r.retryAfterMs} ms.`;
  }
  return errorResponse(429, message, { type: r.kind, code: "rate_limit_exceeded", headers });
}

/** The usage counts beyond prompt, completion and cached tokens that the profile reports. */
function usageDetails(profile: SimProfile, answer: Answer, reasoning: number): UsageDetails {
  const field = profile.engine.cache_write_field;
  const written = profile.engine.prefix_caching ? answer.promptTokens - answer.cachedTokens : 0;
  return {
    ...(answer.reasoningTokens === null ? {} : { reasoning }),
    ...(field === "none" ? {} : { cacheWrite: { field, tokens: written } }),
  };
}

/** The fields of a non-streamed completion besides the answer. */
interface CompletionFields {
  id: string;
  created: number;
  model: string;
  /** Visible tokens (hidden reasoning excluded). */
  outputTokens: number;
  finish: string;
  callId: string;
  usage: ReturnType<typeof usage>;
}

function completion(answer: Answer, f: CompletionFields): unknown {
  const { id, created, model, outputTokens, finish, callId } = f;
  const out = answer.output;
  const message = out.kind === "text"
    ? { role: "assistant", content: out.pieces.slice(0, outputTokens).join(""), refusal: null }
    : {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [{
        id: callId,
        type: "function",
        function: { name: out.name, arguments: out.pieces.slice(out.nameTokens, outputTokens).join("") },
      }],
    };
  return {
    id,
    object: "chat.completion",
    created,
    model,
    system_fingerprint: "sim",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: f.usage,
  };
}
