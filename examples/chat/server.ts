/**
 * The example chat app's server, instrumented with the recorder: it serves the page (which records its side with
 * recorder/browser.js), answers `POST /api/chat` by streaming the model's tokens as plain text, and records each
 * question as a task — the app's queue (`queue` phase), the retrieval step, the order tool for questions naming an
 * order, every model call — into a production run folder. The recorder's own routes (`/_goodput/clock`,
 * `/_goodput/page`) take the page's clock probes and records.
 *
 * ```sh
 * npx deno task sim --port 8001 &
 * npx deno run -A examples/chat/server.ts \
 *   --model-url http://127.0.0.1:8001 --out out/chat-by-hand
 * # open the URL it prints; Ctrl-C closes the recorder and leaves out/chat-by-hand/ for `npx deno task analyze`
 * ```
 *
 * @module
 */
import { recorder, recorderRoutes, recordingFetch } from "../../recorder/mod.ts";
import type { Outcome } from "../../schema/events.ts";
import type { Recorder, Task } from "../../recorder/types.ts";
import { type CommandSpec, runCommand } from "../../lib/command.ts";
import { streamChat } from "./llm.ts";
import { lookupOrder, ORDER_TOOL_MS, orderNumber } from "./orders.ts";
import { ANSWER_MAX_TOKENS, CHAT_WORKLOAD_NAME, chatMessages, CLASSES, questionClass } from "./prompt.ts";
import { RETRIEVAL_MS, retrieve } from "./retrieval.ts";
import { Slots } from "./slots.ts";

export { CLASSES };

/** The header recorder/browser.js sends the request id in. */
const REQUEST_ID_HEADER = "x-goodput-request-id";

/** Options of {@linkcode startChatApp}. */
export interface ChatAppOptions {
  /** The model server's base URL (the simulator's). */
  modelUrl: string;
  /** @default "sim-llm" */
  model?: string;
  /** The run folder the recorder writes. */
  out: string;
  runId: string;
  /** @default 0 (a free port) */
  port?: number;
  /** Questions answered at once; the rest wait in the app's queue. @default 4 */
  concurrency?: number;
  /** The share of questions recorded. @default 1 */
  sample?: number;
  /**
   * Stand-ins for the round trips of a real search service and order service, ms.
   * @default {@linkcode RETRIEVAL_MS} (25), {@linkcode ORDER_TOOL_MS} (60)
   */
  retrievalMs?: number;
  toolMs?: number;
  /** The answer's token cap. @default {@linkcode ANSWER_MAX_TOKENS} (64) */
  maxTokens?: number;
}

/** A running chat app. */
export interface ChatApp {
  url: string;
  recorder: Recorder;
  /** Stops listening, then closes the recorder (every open task written, the last part rotated to Parquet). */
  close(): Promise<void>;
}

const FILES: Record<string, [string, string]> = {
  "/": ["./page.html", "text/html; charset=utf-8"],
  "/examples/chat/page.js": ["./page.js", "text/javascript; charset=utf-8"],
  "/recorder/browser.js": ["../../recorder/browser.js", "text/javascript; charset=utf-8"],
};

/** The outcome and error kind of a failed answer. */
function failure(e: unknown): [Exclude<Outcome, "ok" | "not_sent" | "client_shed">, string] {
  const { kind, status } = e as { kind?: string; status?: number | null };
  if (status === 429) return ["rejected", kind ?? "rate_limited"];
  if (typeof status === "number") {
    return [kind === "truncated_stream" ? "invalid_response" : "http_error", kind ?? "http_error"];
  }
  return ["transport_error", kind ?? String(e)];
}

/** Starts the app on 127.0.0.1 with its recorder. */
export async function startChatApp(o: ChatAppOptions): Promise<ChatApp> {
  const files = new Map<string, [string, string]>();
  for (const [path, [file, type]] of Object.entries(FILES)) {
    files.set(path, [await Deno.readTextFile(new URL(file, import.meta.url)), type]);
  }
  const rec = recorder({
    out: o.out,
    run_id: o.runId,
    app: { name: "chat-example", version: "1.0.0" },
    workload: { name: CHAT_WORKLOAD_NAME, classes: [...CLASSES] },
    route: "sim",
    provider: "sim",
    model: o.model ?? "sim-llm",
    sample: o.sample ?? 1,
    conditions: { model_server: o.modelUrl, concurrency: String(o.concurrency ?? 4) },
  });
  const routes = recorderRoutes(rec);
  const modelFetch = recordingFetch(rec); // inside task.run, each model call is an attempt of the task
  const slots = new Slots(o.concurrency ?? 4);

  async function answer(task: Task, cls: string, question: string, write: (text: string) => void): Promise<void> {
    await task.phase("queue", () => slots.acquire());
    try {
      const passages = await task.span("retrieval", () => retrieve(question, o.retrievalMs ?? RETRIEVAL_MS));
      const order = orderNumber(question);
      const facts = cls === "order" && order
        ? [await task.span("order_status", () => lookupOrder(order, o.toolMs ?? ORDER_TOOL_MS))]
        : [];
      let first = true;
      const { output, finish_reason } = await streamChat({
        url: o.modelUrl,
        model: o.model ?? "sim-llm",
        messages: chatMessages(question, passages, facts),
        max_tokens: o.maxTokens ?? ANSWER_MAX_TOKENS,
        fetch: modelFetch,
        onToken(text) {
          write(text);
          if (first) {
            first = false;
            task.firstToken();
          }
        },
      });
      // The only gate the app can judge: a non-empty answer that ended by itself (not cut by the cap).
      task.complete({ output, valid: output.trim() !== "" && finish_reason === "stop", finish_reason });
    } finally {
      slots.release();
    }
  }

  async function chat(req: Request): Promise<Response> {
    const received = performance.timeOrigin + performance.now();
    const question = String((await req.json().catch(() => ({})))?.text ?? "").slice(0, 2000);
    if (!question) return new Response('a question is required: {"text": …}\n', { status: 400 });
    const requestId = req.headers.get(REQUEST_ID_HEADER) ?? undefined;
    const cls = questionClass(question);
    const task = rec.begin({
      class: cls,
      request_id: requestId,
      page: requestId !== undefined,
      at: received,
      prompt: question,
    });
    task.received(received);
    const enc = new TextEncoder();
    let gone = false; // the page left: its tokens go nowhere, the answer is still recorded
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const write = (text: string) => {
          if (!gone) controller.enqueue(enc.encode(text));
        };
        task.run(() => answer(task, cls, question, write)).then(() => {
          if (!gone) controller.close();
          task.responded();
        }, (e) => {
          task.fail(...failure(e));
          if (!gone) controller.error(e);
        });
      },
      cancel() {
        gone = true;
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: o.port ?? 0, onListen: () => {} }, async (req) => {
    const routed = await routes(req);
    if (routed) return routed;
    const path = new URL(req.url).pathname;
    if (req.method === "POST" && path === "/api/chat") return await chat(req);
    const file = req.method === "GET" ? files.get(path) : undefined;
    if (file) return new Response(file[0], { headers: { "content-type": file[1], "cache-control": "no-store" } });
    return new Response("not found\n", { status: 404 });
  });
  let closed: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    recorder: rec,
    close() {
      closed ??= (async () => {
        await server.shutdown();
        await rec.close();
      })();
      return closed;
    },
  };
}

/** The app as a command (examples/chat/drive.ts starts it so; by hand, see the module doc). */
export const CHAT_SERVER_COMMAND = {
  name: "example-server",
  invocation: "npx deno run -A examples/chat/server.ts",
  summary: "the example chat app (examples/chat): serves the page, answers from a model server, records every " +
    "question into a production run folder; stops on Ctrl-C or SIGTERM, closing the recorder",
  flags: {
    "model-url": {
      type: "string",
      arg: "URL",
      required: true,
      description: "the model server's base URL (the simulator's)",
    },
    out: { type: "string", arg: "DIR", required: true, description: "the run folder the recorder writes" },
    "run-id": { type: "string", arg: "ID", default: "chat", description: "the run's id" },
    port: {
      type: "number",
      arg: "P",
      default: 0,
      rule: { min: 0, max: 65535, integer: true },
      description: "the port on 127.0.0.1 (0: a free one)",
    },
    concurrency: {
      type: "number",
      arg: "N",
      default: 4,
      rule: { min: 1, integer: true },
      description: "questions answered at once; the rest wait in the app's queue",
    },
    sample: {
      type: "number",
      arg: "S",
      default: 1,
      rule: { above: 0, max: 1 },
      description: "the share of questions recorded",
    },
    "max-life": {
      type: "number",
      arg: "S",
      default: 0,
      rule: { min: 0 },
      description: "stop by itself (closing the recorder) after this many seconds; 0: run until Ctrl-C or SIGTERM",
    },
    "retrieval-ms": {
      type: "number",
      arg: "MS",
      default: RETRIEVAL_MS,
      rule: { min: 0 },
      description: "the stand-in for a search service's round trip",
    },
    "tool-ms": {
      type: "number",
      arg: "MS",
      default: ORDER_TOOL_MS,
      rule: { min: 0 },
      description: "the stand-in for the order service's round trip",
    },
  },
  examples: [
    "npx deno run -A examples/chat/server.ts --model-url http://127.0.0.1:8001 --out out/chat-by-hand",
  ],
} as const satisfies CommandSpec;

if (import.meta.main) {
  await runCommand(CHAT_SERVER_COMMAND, async ({ values: v, check }) => {
    check.throwIfAny();
    const app = await startChatApp({
      modelUrl: v["model-url"]!,
      out: v.out!,
      runId: v["run-id"],
      port: v.port,
      concurrency: v.concurrency,
      sample: v.sample,
      retrievalMs: v["retrieval-ms"],
      toolMs: v["tool-ms"],
    });
    console.log(`chat app listening on ${app.url} (recording into ${v.out})`);
    const stopped = Promise.withResolvers<void>();
    for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => stopped.resolve());
    // A driver that died leaves no app behind for long: it closes its recorder and exits by itself.
    if (v["max-life"] > 0) setTimeout(() => stopped.resolve(), v["max-life"] * 1000);
    await stopped.promise;
    await app.close();
    const s = app.recorder.stats();
    console.log(`recorder closed: ${s.written} tasks written, ${s.page_records_unjoined} page records unjoined`);
    return 0;
  });
}
