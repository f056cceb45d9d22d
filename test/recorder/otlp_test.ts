/**
 * The OTLP exporter (recorder/otlp.ts): batches as lines of a file or POSTs to an OTLP/HTTP endpoint on 127.0.0.1,
 * later than `export` (which only queues), within a bounded queue whose drops are counted, and never an error thrown
 * to the app.
 */
import assert from "node:assert/strict";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../../schema/version.ts";
import { join } from "node:path";
import { otlpExporter, tracesUrl } from "../../recorder/otlp.ts";
import type { OtlpTraces } from "../../schema/otlp.ts";
import { exampleRequestRow, exampleTaskRows } from "../../testing/task_rows.ts";

const task = (id: string) => exampleTaskRows({ request: exampleRequestRow({ request_id: id }) });
const lines = async (file: string) =>
  (await Deno.readTextFile(file)).split("\n").filter((l) => l).map((l) => JSON.parse(l) as OtlpTraces);

Deno.test("a file gets one OTLP/JSON line per batch: one resource (service.name) and one scope per line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "traces.jsonl");
    const ex = otlpExporter({ file, service_name: "chat-app", service_version: "2.1", max_batch: 2 });
    for (const id of ["a", "b", "c"]) ex.export(task(id));
    await ex.flush();
    const docs = await lines(file);
    // Three tasks in batches of two: two lines, of 2 tasks × 2 spans and 1 task × 2 spans.
    assert.equal(docs.length, 2);
    assert.deepEqual(docs.map((d) => d.resourceSpans![0]!.scopeSpans![0]!.spans!.length), [4, 2]);
    assert.deepEqual(docs[0]!.resourceSpans![0]!.resource!.attributes, [
      { key: "service.name", value: { stringValue: "chat-app" } },
      { key: "service.version", value: { stringValue: "2.1" } },
    ]);
    assert.deepEqual(docs[0]!.resourceSpans![0]!.scopeSpans![0]!.scope, {
      name: "goodput-recorder",
      version: `${SCHEMA_VERSION}.${SCHEMA_MINOR}`,
    });
    assert.deepEqual(ex.stats(), {
      exported: 3,
      spans: 6,
      batches: 2,
      pending: 0,
      dropped: { queue_full: 0, failed: 0 },
      errors: 0,
    });
    await ex.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("export only queues: nothing is written before batch_ms has passed or a flush", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "traces.jsonl");
    const ex = otlpExporter({ file, service_name: "s", batch_ms: 50 });
    ex.export(task("a"));
    assert.equal(ex.stats().pending, 1);
    await assert.rejects(() => Deno.stat(file), Deno.errors.NotFound);
    await new Promise((r) => setTimeout(r, 120));
    assert.equal((await lines(file)).length, 1);
    await ex.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the queue is bounded: past max_queue tasks waiting, a task is dropped and counted; so after close", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ex = otlpExporter({ file: join(dir, "t.jsonl"), service_name: "s", max_queue: 2 });
    for (const id of ["a", "b", "c"]) ex.export(task(id));
    await ex.close();
    ex.export(task("d"));
    // a and b written; c found the queue full (2 waiting); d came after close.
    assert.equal(ex.stats().exported, 2);
    assert.equal(ex.stats().dropped.queue_full, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an endpoint gets POST /v1/traces, application/json, the headers; a refused batch is dropped and counted", async () => {
  const got: { path: string; type: string | null; key: string | null; body: OtlpTraces }[] = [];
  let refuse = false;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push({
      path: new URL(req.url).pathname,
      type: req.headers.get("content-type"),
      key: req.headers.get("x-api-key"),
      body: await req.json(),
    });
    return refuse ? new Response("busy", { status: 503 }) : Response.json({});
  });
  try {
    const errors: unknown[] = [];
    const ex = otlpExporter({
      endpoint: `http://127.0.0.1:${server.addr.port}`,
      service_name: "s",
      headers: { "x-api-key": "k" },
      onError: (e) => errors.push(e),
    });
    ex.export(task("a"));
    await ex.flush();
    refuse = true;
    ex.export(task("b"));
    await ex.close();
    assert.deepEqual(got.map((g) => [g.path, g.type, g.key]), [
      ["/v1/traces", "application/json", "k"],
      ["/v1/traces", "application/json", "k"],
    ]);
    assert.equal(got[0]!.body.resourceSpans![0]!.scopeSpans![0]!.spans!.length, 2);
    assert.equal(ex.stats().exported, 1);
    assert.equal(ex.stats().dropped.failed, 1);
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /HTTP 503 busy/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a file that cannot be written: the batch is counted as failed, onError hears of it, nothing throws", async () => {
  const errors: unknown[] = [];
  const ex = otlpExporter({ file: "/nonexistent-dir/t.jsonl", service_name: "s", onError: (e) => errors.push(e) });
  ex.export(task("a"));
  await ex.close();
  assert.deepEqual([ex.stats().dropped.failed, ex.stats().errors, errors.length], [1, 1, 1]);
});

Deno.test("options: exactly one of file and endpoint; the endpoint gets /v1/traces unless it ends with it", () => {
  assert.throws(() => otlpExporter({ service_name: "s" }), TypeError);
  assert.throws(() => otlpExporter({ service_name: "s", file: "f", endpoint: "http://127.0.0.1:4318" }), TypeError);
  assert.throws(() => otlpExporter({ service_name: "s", file: "f", max_queue: 0 }), /max_queue/);
  assert.equal(tracesUrl("http://127.0.0.1:4318"), "http://127.0.0.1:4318/v1/traces");
  assert.equal(tracesUrl("http://127.0.0.1:4318/otel/"), "http://127.0.0.1:4318/otel/v1/traces");
  assert.equal(tracesUrl("http://127.0.0.1:4318/v1/traces"), "http://127.0.0.1:4318/v1/traces");
});
