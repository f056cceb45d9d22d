/**
 * The app of bench/recorder_http_bench.ts: one Deno.serve handler that answers `POST /chat` with a streamed answer of
 * `--tokens` tokens, with the recorder (`--recorder on`: the calls a streaming chat service makes, as
 * examples/chat/server.ts makes them, its buffer flushed by its own timer every `--flush-ms`, the default 1000) or
 * without it (`off`: the same handler, the same work, no recorder call); `--writer`, `--slice-ms` and `--batch-rows` as
 * bench/recorder_http_bench.ts passes them. With `--time-calls`, the recording app also times each of its recorder
 * calls (`performance.now()` before and after, the pair's own cost included) and sums them per request: the wall time
 * the recorder holds the request's path; `GET /calls` answers those sums (µs, in the order served: `total`, and
 * `by_call` per call name) and empties them. With `--time-handler` (either app), the app times its handler's own
 * synchronous work per request instead — from the parsed question to the streamed Response made, the stream's start
 * included (one pair of `performance.now()` a request, in both apps alike) — and `GET /calls` answers those (`handler`).
 * Prints its URL, then serves until SIGTERM (closing the recorder).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { recorder } from "../recorder/mod.ts";
import { FLUSH_SLICES } from "../recorder/recorder.ts";
import type { Recorder } from "../recorder/types.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    recorder: { type: "string", default: "on" },
    tokens: { type: "string", default: "50" },
    out: { type: "string" },
    "flush-ms": { type: "string", default: "1000" },
    writer: { type: "string", default: "thread" },
    "slice-ms": { type: "string", default: String(FLUSH_SLICES.slice_ms) },
    "batch-rows": { type: "string", default: String(FLUSH_SLICES.batch_rows) },
    "time-calls": { type: "boolean", default: false },
    "time-handler": { type: "boolean", default: false },
    "settle-ms": { type: "string", default: "50" },
    sample: { type: "string", default: "1" },
  },
});
FLUSH_SLICES.slice_ms = Number(values["slice-ms"]);
FLUSH_SLICES.batch_rows = Number(values["batch-rows"]);
const tokens = Number(values.tokens);
const rec: Recorder | null = values.recorder === "on"
  ? recorder({
    out: values.out!,
    run_id: "bench-http",
    app: { name: "bench", version: "1" },
    buffer: { flush_ms: Number(values["flush-ms"]), settle_ms: Number(values["settle-ms"]) },
    writer: values.writer === "app" ? "app" : "thread",
    sample: Number(values.sample),
  })
  : null;
const enc = new TextEncoder();
const piece = enc.encode("tok ");
const timeCalls = values["time-calls"] && rec !== null;
const timeHandler = values["time-handler"];
/** Per request served, the wall time of the handler's synchronous work, µs (`--time-handler`). */
let handlerUs: number[] = [];
/** Per request served, the wall time of its recorder calls, µs (`--time-calls`). */
let callsUs: number[] = [];
/** Per call, per request served, its wall time (summed over the request's calls of that name: 50 `token`s), µs. */
let byCallUs: Record<string, number[]> = {};

/** Runs one recorder call; with `--time-calls`, adds its wall time to `acc[0]` (ms). */
function timed<T>(acc: Acc, name: string, call: () => T): T {
  if (!timeCalls) return call();
  const t0 = performance.now();
  const r = call();
  const ms = performance.now() - t0;
  acc.total += ms;
  acc.by[name] = (acc.by[name] ?? 0) + ms;
  return r;
}

/** One request's recorder time (ms): in all, and by call. */
interface Acc {
  total: number;
  by: Record<string, number>;
}

/** The app's own work, identical with and without the recorder: read the question, stream the tokens. */
async function chat(req: Request): Promise<Response> {
  const { text } = await req.json() as { text: string };
  const h0 = timeHandler ? performance.now() : 0;
  const acc: Acc = { total: 0, by: {} };
  const task = timed(acc, "begin", () => rec?.begin({ class: "chat", prompt: text }));
  timed(acc, "received", () => task?.received());
  const call = timed(acc, "attempt", () => task?.attempt({ model: "m", streamed: true }));
  timed(acc, "headers", () => call?.headers(200));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < tokens; i++) {
        controller.enqueue(piece);
        timed(acc, "token", () => call?.token());
        if (i === 0) timed(acc, "firstToken", () => task?.firstToken());
      }
      timed(
        acc,
        "end",
        () => call?.end({ ok: true, usage: { input_tokens: 20, output_tokens: tokens }, finish_reason: "stop" }),
      );
      const output = "tok ".repeat(tokens);
      timed(acc, "complete", () => task?.complete({ output, valid: true }));
      controller.close();
      timed(acc, "responded", () => task?.responded());
      if (timeCalls) {
        callsUs.push(acc.total * 1000);
        for (const [name, ms] of Object.entries(acc.by)) (byCallUs[name] ??= []).push(ms * 1000);
      }
    },
  });
  const res = new Response(body, { headers: { "content-type": "text/plain" } });
  if (timeHandler) handlerUs.push((performance.now() - h0) * 1000);
  return res;
}

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  if (req.method === "GET" && new URL(req.url).pathname === "/calls") {
    const body = JSON.stringify({ total: callsUs, by_call: byCallUs, handler: handlerUs });
    callsUs = [];
    byCallUs = {};
    handlerUs = [];
    return new Response(body, { headers: { "content-type": "application/json" } });
  }
  return chat(req);
});
console.log(`listening on http://127.0.0.1:${server.addr.port}`);
Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await rec?.close();
  Deno.exit(0);
});
