/**
 * The app of bench/recorder_http_bench.ts: one Deno.serve handler that answers `POST /chat` with a streamed answer of
 * `--tokens` tokens, with the recorder (`--recorder on`: the calls a streaming chat service makes, as
 * examples/chat/server.ts makes them, its buffer flushed by its own timer every `--flush-ms`, the default 1000) or
 * without it (`off`: the same handler, the same work, no recorder call); `--writer`, `--slice-ms` and `--batch-rows` as
 * bench/recorder_http_bench.ts passes them. Prints its URL, then serves until SIGTERM (closing the recorder).
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
    buffer: { flush_ms: Number(values["flush-ms"]) },
    writer: values.writer === "app" ? "app" : "thread",
  })
  : null;
const enc = new TextEncoder();
const piece = enc.encode("tok ");

/** The app's own work, identical with and without the recorder: read the question, stream the tokens. */
async function chat(req: Request): Promise<Response> {
  const { text } = await req.json() as { text: string };
  const task = rec?.begin({ class: "chat", prompt: text });
  task?.received();
  const call = task?.attempt({ model: "m", streamed: true });
  call?.headers(200);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < tokens; i++) {
        controller.enqueue(piece);
        call?.token();
        if (i === 0) task?.firstToken();
      }
      call?.end({ ok: true, usage: { input_tokens: 20, output_tokens: tokens }, finish_reason: "stop" });
      task?.complete({ output: "tok ".repeat(tokens), valid: true });
      controller.close();
      task?.responded();
    },
  });
  return new Response(body, { headers: { "content-type": "text/plain" } });
}

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => chat(req));
console.log(`listening on http://127.0.0.1:${server.addr.port}`);
Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await rec?.close();
  Deno.exit(0);
});
