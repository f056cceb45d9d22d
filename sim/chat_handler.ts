import { SERVICE_MODE_HEADER, type SimProfile } from "../schema/mod.ts";
import type { Engine } from "./engine.ts";
import { degradedModeAt, shortened } from "./degraded_mode.ts";
import type { SimDialect, SimError, SimMatch, SimStreamFormat, SimUsage } from "./dialects/dialect.ts";
import type { IntakeSwitch } from "./intake.ts";
import { PROMPT_COUNT_STOPPED, type PromptCounter } from "./prompt_counter.ts";
import { MAX_TOKENIZED_CHARS, MAX_TOKENIZER_WORK } from "../schema/tokenizer_bound.ts";
import type { RateLimiter, RateLimitRefusal } from "./rate_limiter.ts";
import type { Answer, Responder } from "./responder.ts";
import type { SimJudge } from "./judge.ts";
import type { SimSequence } from "./sequence.ts";

/** What the chat endpoint needs from the running sim. */
export interface ChatContext {
  profile: SimProfile;
  engine: Engine;
  responder: Responder;
  /** The judge mode (profile `judge`), or null without one. */
  judge: SimJudge | null;
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

/** One dialect's answers to one request: its errors carry the quota's headers when the profile has one. */
class Reply {
  readonly dialect: SimDialect;
  readonly #limiter: RateLimiter | null;

  constructor(dialect: SimDialect, limiter: RateLimiter | null) {
    this.dialect = dialect;
    this.#limiter = limiter;
  }

  /** The dialect's rate-limit headers of the quota's state now, or null without a quota. */
  limits(): Record<string, string> | null {
    return this.#limiter ? this.dialect.limitHeaders(this.#limiter.snapshot()) : null;
  }

  /** An error answer in the dialect's format, with the quota's headers (the error's own win). */
  error(e: SimError): Response {
    const limits = this.limits();
    return this.dialect.error(limits ? { ...e, headers: { ...limits, ...e.headers } } : e);
  }

  /** A quota 429: only the short bucket's headers (today's OpenAI 429, header for header) and the wait. */
  rateLimited(r: RateLimitRefusal, tokens: number): Response {
    const unit = r.kind === "requests" ? "requests per min (RPM)" : "tokens per min (TPM)";
    const requests = r.kind === "requests";
    const headers = this.dialect.limitHeaders({
      limitRequests: requests ? r.limit : null,
      remainingRequests: requests ? r.remaining : null,
      limitTokens: requests ? null : r.limit,
      remainingTokens: requests ? null : r.remaining,
      resetMs: null,
    });
    let message = `Rate limit reached for ${unit}: Limit ${r.limit}, Remaining ${r.remaining}`;
    if (r.retryAfterMs === null) message = `Request too large for ${unit}: Limit ${r.limit}, Requested ${tokens}`;
    else {
      // Whole seconds, rounded up, like hosted APIs: waiting that long always fits.
      headers["retry-after"] = String(Math.max(1, Math.ceil(r.retryAfterMs / 1000)));
      headers["retry-after-ms"] = String(r.retryAfterMs);
      message += `. Please try again in ${r.retryAfterMs} ms.`;
    }
    return this.dialect.error({ class: "rate_limited", limit: r.kind, message, code: "rate_limit_exceeded", headers });
  }

  /** The queue shed it: 429 `overloaded` (each dialect's overload) with Retry-After. */
  shed(profile: SimProfile, why: string): Response {
    return this.error({
      class: "overloaded",
      message: `The server is overloaded (${why}); retry later.`,
      code: "overloaded",
      headers: { "retry-after": String(profile.queue.retry_after_s) },
    });
  }
}

const STOPPING: SimError = { class: "unavailable", message: "The simulator is stopping.", code: "service_unavailable" };

/**
 * A chat request in any dialect (`dialect` answers `match`, sim/dialects/): faults first (outage 503, a new task
 * while intake is stopped 503 + Retry-After, then `error_rate` 500, all before admission), then the answer is
 * decided, the rate limits are checked (429 quota, never queued), and the request is offered to the engine. Headers
 * go out only when it is admitted, so a request shed from the queue still gets a clean 429. The dialect only reads
 * the body and writes the answers and errors; the draws, counts and engine are the same for every dialect.
 *
 * The prompt's tokens are counted after the draws and the `error_rate` fault (sim/prompt_counter.ts: inline when
 * small, else in a worker while other requests are answered); the queue's degraded state and the service mode are
 * judged at arrival, before the count. A prompt over the tokenizer bound gets 400 `prompt_too_complex`.
 *
 * While the profile has a quota, every answer carries the dialect's rate-limit headers of the quota's state.
 */
export async function handleChat(
  req: Request,
  ctx: ChatContext,
  dialect: SimDialect,
  match: SimMatch,
): Promise<Response> {
  const reply = new Reply(dialect, ctx.rateLimiter);
  if (match.error) return reply.error(match.error);
  if (ctx.outage() === "503") {
    ctx.engine.countError();
    return reply.error({
      class: "unavailable",
      message: "The server is temporarily unavailable (simulated outage).",
      code: "service_unavailable",
    });
  }
  let body: unknown;
  try {
    body = await req.json();
  } catch (e) {
    return reply.error({
      class: "invalid_request",
      message: `Request body is not valid JSON: ${(e as Error).message}`,
      code: "invalid_json",
    });
  }
  const parsed = dialect.parse(body, match);
  if (!parsed.ok) {
    return reply.error({
      class: "invalid_request",
      message: parsed.message,
      code: "invalid_value",
      param: parsed.param,
    });
  }
  const chat = parsed.value;
  // Intake stopped by the operator: a new task is refused before any draw; later rounds of tasks in flight go on.
  const stopped = ctx.intake.refusal(chat.messages);
  if (stopped) return reply.error(stopped);
  // Always four draws per accepted request, so the sequence depends only on the seed and arrival order.
  const uError = ctx.draw(), accuracy = ctx.draw(), validity = ctx.draw(), variant = ctx.draw();
  const { profile, engine } = ctx;
  if (uError < profile.faults.error_rate) {
    engine.countError();
    return reply.error({
      class: "server_error",
      message: "The server had an error while processing your request (simulated).",
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
    return reply.error({
      class: "invalid_request",
      message: `The prompt is over the simulator's tokenizer bound (${counted.refused}; at most ` +
        `${MAX_TOKENIZED_CHARS} characters and BPE work, the sum over pre-token pieces of their UTF-8 length ` +
        `squared, of at most ${MAX_TOKENIZER_WORK}), so its tokens ` +
        `are not counted; a long run of one character without spaces is the usual cause.`,
      code: "prompt_too_complex",
      param: "messages",
    });
  }
  if ("failed" in counted) {
    return reply.error(
      counted.failed === PROMPT_COUNT_STOPPED ? STOPPING : {
        class: "server_error",
        message: `The simulator could not count the prompt: ${counted.failed}.`,
        code: "internal_error",
      },
    );
  }
  // A judge's request (profile `judge`) is answered with a verdict, through the same engine as any answer.
  const judged = ctx.judge?.answer(chat.messages, counted.tokens.reduce((a, b) => a + b, 0)) ?? null;
  const decided = judged ?? ctx.responder.respond(chat.messages, { accuracy, validity, variant }, {
    maxTokens: cap,
    degraded,
    prefixCaching: profile.engine.prefix_caching,
  }, counted.tokens);
  const answer = dm && mode ? shortened(decided, dm.max_output_tokens) : decided;
  const kvTokens = answer.promptTokens + cap;
  if (!engine.fits(kvTokens)) {
    return reply.error({
      class: "invalid_request",
      message: `This request needs ${kvTokens} tokens (prompt ${answer.promptTokens} + max_tokens ${cap}); ` +
        `a replica holds ${profile.engine.max_kv_tokens}.`,
      code: "context_length_exceeded",
      param: "messages",
    });
  }
  const refused = ctx.rateLimiter?.admit(kvTokens) ?? null;
  if (refused) {
    engine.countRateLimited();
    return reply.rateLimited(refused, kvTokens);
  }
  return await serve(req, ctx, reply, answer, {
    cap,
    stream: chat.stream,
    includeUsage: chat.includeUsage,
    model: chat.model,
    mode,
    serviceTier: chat.serviceTier ?? profile.service_tier,
  });
}

/** How one answer is served: its token cap, streamed or not, with usage or not, the model named, the service mode and tier. */
interface ServeOptions {
  cap: number;
  stream: boolean;
  includeUsage: boolean;
  model: string;
  mode: string | null;
  /** The tier the answer says it was served at (the request's, else the profile's), null for none. */
  serviceTier: string | null;
}

function serve(req: Request, ctx: ChatContext, reply: Reply, answer: Answer, o: ServeOptions): Promise<Response> {
  const { cap, stream, includeUsage, model, mode, serviceTier } = o;
  const { dialect } = reply;
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
  const u = simUsage(ctx.profile, answer, outputTokens, hidden);
  const headers = {
    ...reply.limits(),
    "x-request-id": id,
    "x-sim-case-id": answer.caseId ?? "",
    "x-sim-verdict": answer.verdict + (answer.brokenJson ? "+broken_json" : ""),
    ...(mode ? { [SERVICE_MODE_HEADER]: mode } : {}),
  };
  const fmt = stream ? dialect.stream(id, model, created, serviceTier) : null;
  // The closing frames are made after the last token's (a stateful format, e.g. Anthropic's, closes its open block).
  const tailOf = (f: SimStreamFormat) => f.end(finish, u, includeUsage);
  const nameTokens = out.kind === "tool_call" ? out.nameTokens : 0;
  const tokenFrame = (f: SimStreamFormat, step: number): string | Uint8Array => {
    const i = step - hidden;
    if (i < 0) return "";
    if (out.kind === "text") return f.content(out.pieces[i]!);
    if (i === 0) return f.toolCallStart(callId, out.name);
    return i < nameTokens ? "" : f.toolCallArguments(out.pieces[i]!);
  };

  const { promise, resolve: settle } = Promise.withResolvers<Response>();
  const end = () => ctx.live.delete(terminate);
  let listening = false;
  const onAbort = () => {
    ctx.engine.cancel(seq);
    resolve(reply.error({ class: "client_closed", message: "Client closed the request.", code: "client_closed" }));
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
  const write = (frame: string | Uint8Array, close: boolean) => {
    if (open && controller && frame.length) {
      controller.enqueue(typeof frame === "string" ? encoder.encode(frame) : frame);
    }
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
    settle(reply.error(STOPPING));
  };
  ctx.live.add(terminate);
  const seq: SimSequence = {
    id: n,
    prefillTokens: answer.promptTokens - answer.cachedTokens,
    kvTokens: answer.promptTokens + cap,
    outputTokens,
    cancelled: false,
    onAdmit() {
      if (!fmt) return;
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
          headers: { ...headers, "content-type": dialect.streamContentType, "cache-control": "no-cache" },
        }),
      );
      write(fmt.start(), false);
    },
    onToken(i) {
      if (!fmt) return;
      const frame = tokenFrame(fmt, i);
      if (i !== outputTokens - 1) return write(frame, false);
      // The last token, the finish, usage and end marker leave in one write (two when either is bytes).
      const tail = tailOf(fmt);
      if (typeof frame === "string" && typeof tail === "string") write(frame + tail, true);
      else {
        write(frame, false);
        write(tail, true);
      }
    },
    onFinish() {
      if (fmt) {
        if (outputTokens === 0) write(tailOf(fmt), true);
        return;
      }
      const text = out.kind === "text" ? out.pieces.slice(0, visible).join("") : null;
      const toolCall = out.kind === "tool_call"
        ? { id: callId, name: out.name, arguments: out.pieces.slice(out.nameTokens, visible).join("") }
        : null;
      const body = dialect.body({ id, model, created, text, toolCall, finish, usage: u, serviceTier });
      resolve(Response.json(body, { headers }));
    },
    onShed(reason) {
      resolve(reply.shed(ctx.profile, reason === "queue_full" ? "queue is full" : "waited too long in the queue"));
    },
  };
  const where = ctx.engine.submit(seq);
  if (where === "shed") resolve(reply.shed(ctx.profile, "queue is full"));
  // A queued client that goes away is dropped from the queue. Only queued requests listen: Deno's legacy
  // request.signal also fires after a successful response and warns once when it was used.
  if (where === "queued") {
    listening = true;
    req.signal.addEventListener("abort", onAbort, { once: true });
  }
  return promise;
}

/** The answer's usage in neutral counts, with the reasoning and cache-write counts the profile reports. */
function simUsage(profile: SimProfile, answer: Answer, outputTokens: number, reasoning: number): SimUsage {
  const u: SimUsage = { prompt: answer.promptTokens, output: outputTokens, cached: answer.cachedTokens };
  if (answer.reasoningTokens !== null) u.reasoning = reasoning;
  const field = profile.engine.cache_write_field;
  if (field !== "none") {
    u.cacheWrite = profile.engine.prefix_caching ? answer.promptTokens - answer.cachedTokens : 0;
    u.cacheWriteField = field;
  }
  return u;
}
