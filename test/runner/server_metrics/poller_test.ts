import assert from "node:assert/strict";
import { join } from "node:path";
import { detectServerMetrics } from "../../../runner/server_metrics/detect.ts";
import { pollOnce } from "../../../runner/server_metrics/poller.ts";
import { runLoadTest } from "../../../runner/run.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { SimProfile } from "../../../schema/mod.ts";
import { startSim } from "../../../sim/server.ts";
import { llamacppMetrics, startFakeEngine } from "../../support/fake_engine.ts";
import { startFaultServer } from "../../support/fault_server.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../../testing/tiny_workload.ts";

const FIXTURES = new URL("../../fixtures/server_metrics/", import.meta.url);
const quiet = { note: () => {} };
const at = (url: string) => [{ route: "r", url: new URL(`${url}/v1/chat/completions`) }];
const SLOT = (prompt: number, decoded: number) => ({
  id: 0,
  is_processing: true,
  n_prompt_tokens: prompt,
  next_token: [{ n_decoded: decoded }],
});

Deno.test("auto recognises llama.cpp and vLLM by their /metrics names; a server with none is not polled", async () => {
  const llama = await startFakeEngine({ metrics: () => llamacppMetrics(1, 0), slots: () => [SLOT(10, 2)] });
  const vllm = await startFakeEngine({ metrics: () => Deno.readTextFileSync(new URL("vllm_metrics.txt", FIXTURES)) });
  const plain = await startFaultServer();
  try {
    const l = await detectServerMetrics(at(llama.url), "auto", quiet);
    assert.equal(l.polled.length, 1);
    assert.deepEqual(l.record.targets[0]!.source, "llamacpp");
    assert.deepEqual(l.record.targets[0]!.endpoints, ["/metrics", "/slots"]);
    assert.deepEqual(Object.keys(l.record.targets[0]!.columns), ["queue_len", "running", "kv_tokens"]);
    assert.ok(l.record.targets[0]!.not_exposed.includes("oldest_queued_ms"));
    assert.deepEqual(llama.seen, ["/sim/timeline", "/metrics", "/slots"], "the simulator's timeline is asked first");
    const v = await detectServerMetrics(at(vllm.url), "auto", quiet);
    assert.equal(v.record.targets[0]!.source, "vllm");
    assert.deepEqual(v.record.targets[0]!.endpoints, ["/metrics"]);
    // The fault server answers every path with a chat completion: no Prometheus names, so none.
    const notes: string[] = [];
    const p = await detectServerMetrics(at(plain.url), "auto", { note: (n) => notes.push(n) });
    assert.equal(p.polled.length, 0);
    assert.equal(p.record.targets[0]!.source, null);
    assert.match(
      notes[0]!,
      /no server timeline: no \/sim\/timeline \(not a JSON array\); GET \/metrics has no llamacpp: or vllm: metric: not polled/,
    );
    const off = await detectServerMetrics(at(llama.url), "off", quiet);
    assert.deepEqual([off.polled.length, off.record.targets[0]!.how], [0, "--server-metrics off"]);
  } finally {
    await Promise.all([llama.close(), vllm.close(), plain.close()]);
  }
});

Deno.test("a /metrics probe with no answer in time is asked once more before the server is left unpolled", async () => {
  const text = llamacppMetrics(0, 0);
  for (const stalls of [1, 2]) {
    let metricsCalls = 0;
    const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      if (new URL(req.url).pathname !== "/metrics") return new Response("no", { status: 404 });
      metricsCalls++;
      const answer = () => new Response(text, { headers: { "content-type": "text/plain" } });
      return metricsCalls <= stalls ? new Promise<Response>((r) => setTimeout(() => r(answer()), 400)) : answer();
    });
    try {
      const notes: string[] = [];
      const d = await detectServerMetrics(at(`http://127.0.0.1:${srv.addr.port}`), "auto", {
        timeoutMs: 100,
        note: (n) => notes.push(n),
      });
      const target = d.record.targets[0]!;
      assert.equal(metricsCalls, 2, `${stalls} stalled: asked twice`);
      if (stalls === 1) assert.equal(target.source, "llamacpp", target.how);
      else {
        assert.equal(target.source, null);
        assert.match(target.how, /GET \/metrics: no answer in 100 ms, asked twice: not polled/);
      }
    } finally {
      await srv.shutdown();
    }
  }
});

Deno.test("a forced source that the server does not speak is named, not polled", async () => {
  const llama = await startFakeEngine({ metrics: () => llamacppMetrics(1, 0) });
  try {
    const v = await detectServerMetrics(at(llama.url), "vllm", quiet);
    assert.equal(v.polled.length, 0);
    assert.equal(v.record.targets[0]!.how, "GET /metrics has no vllm: metric: not polled");
    assert.deepEqual(llama.seen, ["/metrics"], "a forced engine source does not ask /sim/timeline");
  } finally {
    await llama.close();
  }
});

Deno.test("each reading is one row, or counted: failed, dropped, malformed lines", async () => {
  const answers: (string | Response)[] = [
    llamacppMetrics(3, 2),
    "garbage line\n" + llamacppMetrics(4, 5), // one malformed line: dropped, the row kept
    new Response("busy", { status: 503 }), // failed
    "llamacpp:requests_processing 1\n", // no requests_deferred: no row
  ];
  let k = 0;
  const llama = await startFakeEngine({
    metrics: () => (k === 0 ? llamacppMetrics(0, 0) : answers[k - 1]!),
    slots: () => [SLOT(100, 20), SLOT(50, 0), { id: 2, is_processing: false, n_prompt_tokens: 999 }],
  });
  const dir = Deno.makeTempDirSync();
  try {
    const detected = await detectServerMetrics(at(llama.url), "auto", quiet);
    const s = detected.polled[0]!;
    const sink = CsvSink.open(dir, "server", { epochMs: 0 });
    let now = 0;
    for (k = 1; k <= answers.length; k++) {
      now = k * 1000;
      await pollOnce(s, { clock: { now: () => now, epochUnixMs: 0 }, runId: "run-x", sink, timeoutMs: 1000 });
    }
    sink.close();
    const rows = await readLogCsv(join(dir, "server.csv"), "server");
    // KV: busy slots only, (100 + 20) + (50 + 0) = 170; the idle slot's 999 cached tokens are not counted.
    assert.deepEqual(rows.map((r) => [r.t_ms, r.route, r.running, r.queue_len, r.kv_tokens]), [
      [1000, "r", 3, 2, 170],
      [2000, "r", 4, 5, 170],
    ]);
    assert.deepEqual(rows.map((r) => [r.oldest_queued_ms, r.replicas, r.finished, r.errors]), [[0, 0, 0, 0], [
      0,
      0,
      0,
      0,
    ]]);
    const r = s.record;
    assert.deepEqual([r.polls, r.failed_polls, r.rows_dropped, r.lines_dropped], [4, 1, 1, 1]);
  } finally {
    await llama.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a run against an engine with metrics has its server table, and run.json says how it was filled", async () => {
  let processing = 0;
  const llama = await startFakeEngine({
    metrics: () => llamacppMetrics(processing++ % 3, 1),
    slots: () => [SLOT(7, 1)],
  });
  const dir = Deno.makeTempDirSync();
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      // 2 req/s for 2.5 s: the poller reads at 0, 1 and 2 s.
      plan: constantPlan(dir, 2, 2.5),
      target: llama.url,
      out: join(dir, "out"),
      formats: ["csv", "parquet"],
      progress: false,
    });
    const rows = await readLogCsv(join(runDir, "server.csv"), "server");
    assert.ok(rows.length >= 2, `${rows.length} rows`);
    for (const r of rows) {
      assert.equal(r.queue_len, 1);
      assert.equal(r.kv_tokens, 8, "7 + 1");
      assert.equal(r.route, "default");
    }
    const sm = manifest.server_metrics!;
    assert.equal(sm.mode, "auto");
    assert.equal(sm.targets[0]!.source, "llamacpp");
    assert.equal(sm.targets[0]!.polls, rows.length + sm.targets[0]!.failed_polls + sm.targets[0]!.rows_dropped);
    assert.match(manifest.files["server.parquet"] ?? "", /^[0-9a-f]{64}$/, "the server table is finalised");
  } finally {
    await llama.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the simulator is still read from /sim/timeline at the end, not polled", async () => {
  const profile = SimProfile.parse({ name: "t", timeline_ms: 100, engine: { decode_step_ms_base: 2 } });
  const sim = await startSim({ port: 0, profile, quiet: true });
  const dir = Deno.makeTempDirSync();
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, 4, 1),
      target: sim.url,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
    });
    const t = manifest.server_metrics!.targets[0]!;
    assert.deepEqual([t.source, t.polls, t.endpoints], ["sim", 0, ["/sim/timeline"]]);
    assert.ok((await readLogCsv(join(runDir, "server.csv"), "server")).length >= 1);
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a shard other than shard 0 reads no server metrics: the server has one timeline, shard 0's", async () => {
  const llama = await startFakeEngine({ metrics: () => llamacppMetrics(1, 0), slots: () => [SLOT(7, 1)] });
  const dir = Deno.makeTempDirSync();
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, 4, 1),
      target: llama.url,
      out: join(dir, "out"),
      formats: ["csv"],
      shard: { index: 1, count: 2 },
      progress: false,
    });
    assert.equal(manifest.server_metrics, undefined);
    assert.deepEqual(
      llama.seen.filter((p) => p !== "/v1/chat/completions"),
      [],
      "no /sim/timeline, /metrics or /slots",
    );
    assert.throws(() => Deno.statSync(join(runDir, "server.csv")), Deno.errors.NotFound);
  } finally {
    await llama.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
