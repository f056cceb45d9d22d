/**
 * The Node bundle's recording fetch and OpenTelemetry exporter on Node 20: a Node service calls the simulator (in this
 * process, on 127.0.0.1) with the bundle's `recordingFetch`, the recorder writes its run folder and the exporter its
 * OTLP file; the file imported back gives the rows the recorder wrote.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readOtlp } from "../../importers/sources/otlp.ts";
import { sourceText } from "../../importers/sources/_source_text.ts";
import { startSim } from "../../sim/server.ts";
import { FAST_ENGINE, profile } from "../sim/_fixtures.ts";
import { readTable, tempOut } from "./_fixture.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = `${ROOT}out/recorder-node/recorder.mjs`;

/** A Node service: one streamed and one unstreamed call through the recording fetch, then close. */
const SCRIPT = `
import { recorder, recordingFetch, otlpExporter } from ${JSON.stringify(BUNDLE)};
const [out, traces, url] = process.argv.slice(2);
const exporter = otlpExporter({ file: traces, service_name: "node-svc" });
const rec = recorder({ out, run_id: "node-otlp", app: { name: "svc", version: "1.0.0" }, exporters: [exporter] });
const f = recordingFetch(rec);
for (const stream of [true, false]) {
  const task = rec.begin({ class: "chat" });
  await task.run(async () => {
    const res = await f(url + "/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "sim-llm", max_tokens: 6, stream,
        messages: [{ role: "user", content: "Hello from Node " + stream }],
        ...(stream ? { stream_options: { include_usage: true } } : {}) }),
    });
    const text = await res.text();
    task.complete({ output: text, valid: res.ok, quality_ok: true });
  });
  task.responded();
}
await rec.close();
console.log(JSON.stringify({ rec: rec.stats(), exporter: exporter.stats() }));
`;

Deno.test("the Node bundle records OpenAI-compatible calls with recordingFetch and exports them as OTLP", async () => {
  const built = await new Deno.Command(Deno.execPath(), { args: ["task", "recorder-node"], cwd: ROOT }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  const sim = await startSim({ profile: profile({ engine: FAST_ENGINE }), quiet: true });
  const t = tempOut();
  try {
    const script = `${t.dir}/service.mjs`, traces = `${t.dir}/traces.jsonl`;
    Deno.writeTextFileSync(script, SCRIPT);
    const ran = await new Deno.Command("node", { args: [script, t.out, traces, sim.url], cwd: t.dir }).output();
    assert.equal(ran.code, 0, new TextDecoder().decode(ran.stderr));
    const stats = JSON.parse(new TextDecoder().decode(ran.stdout));
    assert.deepEqual([stats.rec.written, stats.rec.recorder_errors, stats.exporter.exported], [2, 0, 2]);
    const attempts = await readTable(t.out, "attempts");
    assert.deepEqual(attempts.map((a) => [a.streamed, a.http_status, a.error_kind, a.token_source]), [
      [true, 200, null, "usage"],
      [false, 200, null, "usage"],
    ]);
    assert.ok(attempts.every((a) => a.first_token_ms !== null && a.output_tokens > 0 && a.finish_reason !== null));
    const rows = readOtlp([sourceText(traces, Deno.readTextFileSync(traces))]).rows!;
    // Every column but run_id (the import's own), instants to the nanosecond (OTLP's unit).
    const instant = /^(scheduled|first_sent|first_token|completed|sent|headers|last_token)_ms$/;
    const drop = ({ run_id: _, ...r }: { run_id: string }) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [k, instant.test(k) && typeof v === "number" ? Math.round(v * 1e6) : v]),
      );
    assert.deepEqual(rows.attempts.map(drop), attempts.map(drop));
    assert.deepEqual(rows.requests.map(drop), (await readTable(t.out, "requests")).map(drop));
  } finally {
    await sim.stop();
    t.remove();
  }
});
