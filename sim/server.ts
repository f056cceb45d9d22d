import type { SimProfile, SimTimelineRow, Workload } from "../schema/mod.ts";
import type { LoadedRubrics } from "../schema/workload_file.ts";
import { DEFAULT_BATCH_TURNAROUND_MS, InputError } from "../schema/mod.ts";
import { SimBatches } from "./batch.ts";
import { type ChatContext, handleChat, STOPPED } from "./chat_handler.ts";
import { Engine } from "./engine.ts";
import { OutageSchedule } from "./faults.ts";
import type { SimDialect } from "./dialects/dialect.ts";
import { matchDialect, OPENAI_CHAT, SIM_DIALECTS } from "./dialects/mod.ts";
import { anthropicMessagesSimDialect } from "./dialects/anthropic_messages.ts";
import { errorResponse } from "./dialects/openai_chat.ts";
import { IntakeSwitch, parseIntakeBody } from "./intake.ts";
import { createPrng } from "./prng.ts";
import { RateLimiter } from "./rate_limiter.ts";
import { Responder } from "./responder.ts";
import { Timeline } from "./timeline.ts";
import { simTokenizer } from "./tokenizer.ts";
import { PromptCounter } from "./prompt_counter.ts";
import { SimJudge } from "./judge.ts";

/** Options of {@linkcode startSim}. */
export interface SimOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /**
   * Loopback (127.0.0.1 or another 127.x address, ::1, localhost) unless `expose` is set. @default "127.0.0.1"
   */
  hostname?: string;
  /**
   * Allow a non-loopback `hostname` (`0.0.0.0` in a container, an address inside a network namespace): anyone who can
   * reach it can send it work. @default false
   */
  expose?: boolean;
  profile: SimProfile;
  /**
   * Cases to answer from (a loaded workload, or anything with a `workload` field holding one); the judge mode (profile
   * `judge`) judges the cases its `rubrics` score.
   */
  workload?: Workload | { workload: Workload; rubrics?: LoadedRubrics | null };
  /** Seed of every random draw. @default 1 */
  seed?: number;
  /** No log lines on stderr. @default false */
  quiet?: boolean;
  /** Also append timeline rows to this JSONL file. */
  timelineFile?: string;
  /** Serve https with this certificate chain and key (PEM text); the URL is then `https://`. Absent: plain http. */
  tls?: { cert: string; key: string };
  /**
   * The dialects answered, tried in this order on every POST before the simulator's own routes (tests add one of their
   * own). @default SIM_DIALECTS (sim/dialects/mod.ts)
   */
  dialects?: readonly SimDialect[];
}

/** A running simulator. */
export interface SimHandle {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Timeline rows so far. */
  timeline(): SimTimelineRow[];
  /**
   * Same as `POST /sim/reset`: outage and stall windows count from now, the PRNG restarts from `seed`, rate limits
   * refill, intake is open again.
   */
  reset(seed?: number): void;
  /** Stops timers, cuts requests in flight and closes the listener. */
  stop(): Promise<void>;
}

/** Whether `host` is a loopback name or address. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Starts the simulator in this process: a server on loopback answering
 * chat requests in every provider dialect of sim/dialects/ (OpenAI Chat
 * Completions first) with the profile's capacity model, faults and timeline.
 *
 * @example Start on a free port, ask for the models, stop
 * ```ts
 * import { startSim } from "./server.ts";
 * import { SimProfile } from "../schema/mod.ts";
 * import assert from "node:assert/strict";
 * const sim = await startSim({ profile: SimProfile.parse({ name: "doc" }), quiet: true });
 * const models = await (await fetch(`${sim.url}/v1/models`)).json();
 * assert.equal(models.data[0].id, "sim-llm");
 * await sim.stop();
 * ```
 */
export function startSim(options: SimOptions): Promise<SimHandle> {
  // A promise so that bad options reject like any later start-up failure would.
  return new Promise((resolve) => resolve(start(options)));
}

function start(options: SimOptions): SimHandle {
  const hostname = options.hostname ?? "127.0.0.1";
  if (!isLoopback(hostname) && !options.expose) {
    throw new InputError(
      `hostname ${hostname}: the simulator listens on loopback only (127.0.0.1, ::1, localhost) unless exposed ` +
        "(--expose)",
    );
  }
  const { profile } = options;
  const log = options.quiet ? () => {} : (msg: string) => console.error(`sim: ${msg}`);
  const workload = options.workload === undefined
    ? undefined
    : "cases" in options.workload
    ? options.workload
    : options.workload.workload;
  const responder = new Responder(workload, profile.behaviour, simTokenizer());
  const rubrics = options.workload && !("cases" in options.workload) ? options.workload.rubrics ?? null : null;
  const judge = profile.judge && workload
    ? new SimJudge(profile.judge, workload, rubrics?.byCaseId ?? new Map(), simTokenizer())
    : null;
  const counter = new PromptCounter(simTokenizer());
  const engine = new Engine(profile);
  let seed = options.seed ?? 1;
  let prng = createPrng(seed);
  let n = 0;
  const live = new Set<() => void>();
  const rateLimiter = profile.rate_limits ? new RateLimiter(profile.rate_limits, () => performance.now()) : null;
  let outageMode: () => "503" | "refuse" | null = () => null;
  const intake = new IntakeSwitch(profile.queue.retry_after_s);
  const dialects = options.dialects ?? SIM_DIALECTS;
  const ctx: ChatContext = {
    profile,
    engine,
    responder,
    judge,
    counter,
    rateLimiter,
    outage: () => outageMode(),
    intake,
    draw: () => prng(),
    nextId: () => ++n,
    live,
  };
  const started = Date.now();
  const handler = (req: Request): Response | Promise<Response> => route(req);
  // A stream cut on stop() is expected; anything else is a sim bug worth a log line and a 500.
  const onError = (e: unknown): Response => {
    if (!(e instanceof Error && e.message === STOPPED)) log(`internal error: ${(e as Error)?.stack ?? String(e)}`);
    return errorResponse(500, "Internal simulator error.", { type: "server_error", code: "internal_error" });
  };
  const servers: Deno.HttpServer<Deno.NetAddr>[] = [];
  const listen = (port: number) => {
    const s = Deno.serve({ hostname, port, onListen: () => {}, onError, ...options.tls }, handler);
    servers.push(s);
    return s;
  };
  let current: Deno.HttpServer<Deno.NetAddr> | null = listen(options.port ?? 0);
  const port = current.addr.port;
  const outages = new OutageSchedule(profile.faults.outages, () => performance.now(), {
    refuseStart: () => {
      log("outage: refusing connections");
      void current?.shutdown();
      current = null;
    },
    refuseEnd: () => {
      current = listen(port);
      log("outage over: listening again");
    },
  });
  outageMode = () => outages.current();
  const timeline = new Timeline(profile.timeline_ms, () => engine.snapshot(), options.timelineFile);
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const url = `${options.tls ? "https" : "http"}://${host}:${port}`;
  log(`${profile.name} (${responder.size} cases) listening on ${url}`);
  if (profile.judge) {
    log(
      judge?.size
        ? `judge mode: ${judge.size} cases with a rubric, sensitivity ${profile.judge.sensitivity}, specificity ` +
          `${profile.judge.specificity}`
        : "judge mode: the workload has no rubrics, so no request is answered as a judge",
    );
  }

  const reset = (s?: number) => {
    if (s !== undefined) seed = s;
    prng = createPrng(seed);
    outages.reset();
    engine.resetStalls();
    rateLimiter?.reset();
    intake.set(true);
  };

  // --- batch endpoints (sim/batch.ts): OpenAI Batch and Anthropic Message Batches, answered by the chat path. ---
  const batches = new SimBatches({
    chat: (body) =>
      handleChat(
        new Request(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        ctx,
        OPENAI_CHAT,
        {},
      ),
    anthropic: anthropicMessagesSimDialect,
    turnaroundMs: profile.batch?.turnaround_ms ?? DEFAULT_BATCH_TURNAROUND_MS,
    now: () => Date.now(),
    baseUrl: () => url,
  });
  // --- end of batch endpoints ---

  async function route(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.method === "POST") {
      const found = matchDialect("POST", url, dialects);
      if (found) {
        return found.dialect.authorize?.(req.headers) ?? await handleChat(req, ctx, found.dialect, found.match);
      }
    }
    const path = url.pathname;
    const key = `${req.method} ${path}`;
    const batch = batches.handle(req, path);
    if (batch) return await batch;
    switch (key) {
      case "GET /v1/models":
        return Response.json({
          object: "list",
          data: [{ id: profile.model, object: "model", created: Math.floor(started / 1000), owned_by: "sim" }],
        });
      case "GET /health": {
        const down = outages.current() === "503";
        const s = engine.snapshot();
        // `tokenizing`: prompts being counted in the tokenizer worker now (sim/prompt_counter.ts).
        const tokenizing = counter.pending;
        return Response.json({ status: down ? "unavailable" : "ok", profile: profile.name, ...s, tokenizing }, {
          status: down ? 503 : 200,
        });
      }
      case "GET /sim/timeline":
        return Response.json(timeline.rows());
      case "GET /sim/profile":
        return Response.json(profile);
      case "GET /admin/intake":
        return Response.json(intake.state());
      case "POST /admin/intake": {
        const body = await req.json().catch(() => undefined);
        const parsed = parseIntakeBody(body);
        if (typeof parsed === "string") {
          return errorResponse(400, `POST /admin/intake: ${parsed}`, { type: "invalid_request_error", code: null });
        }
        log(parsed.accept ? "intake resumed" : "intake stopped by the operator");
        return Response.json(intake.set(parsed.accept, parsed.retryAfterS));
      }
      case "POST /sim/reset": {
        const body = await req.json().catch(() => ({})) as { seed?: unknown };
        const s = typeof body?.seed === "number" && Number.isInteger(body.seed) ? body.seed : undefined;
        reset(s);
        return Response.json({ ok: true, seed, origin_unix_ms: Math.round(outages.originUnixMs()) });
      }
    }
    const known = [
      "/v1/chat/completions",
      "/v1/models",
      "/health",
      "/sim/timeline",
      "/sim/profile",
      "/sim/reset",
      "/admin/intake",
    ];
    if (known.includes(path)) {
      return errorResponse(405, `${req.method} is not allowed on ${path}`, {
        type: "invalid_request_error",
        code: null,
      });
    }
    return errorResponse(404, `Unknown path ${path}`, { type: "invalid_request_error", code: "not_found" });
  }

  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    timeline: () => timeline.rows(),
    reset,
    stop() {
      stopped ??= (async () => {
        outages.stop();
        timeline.stop();
        engine.stop();
        for (const end of [...live]) end();
        counter.stop();
        await Promise.all(servers.map((s) => s.shutdown()));
        log("stopped");
      })();
      return stopped;
    },
  };
}
