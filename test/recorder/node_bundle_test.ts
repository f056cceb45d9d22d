import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readManifest, readTable, tempOut } from "./_fixture.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = `${ROOT}out/recorder-node/recorder.mjs`;

/** A Node service's few lines: three tasks on the real clock, one joined by its page through the routes, then close. */
const SCRIPT = `
import { recorder, recorderRoutes } from ${JSON.stringify(BUNDLE)};
const rec = recorder({ out: process.argv[2], run_id: "node-1", app: { name: "svc", version: "1.0.0" }, model: "m" });
const routes = recorderRoutes(rec);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < 2; i++) {
  const task = rec.begin({ class: "chat", request_id: "n-" + i, page: i === 0 });
  task.received();
  await task.run(async () => {
    if (rec.current() !== task) throw new Error("AsyncLocalStorage lost the task");
    await task.span("retrieval", async () => {
      await sleep(1);
      const t = performance.now();
      while (performance.now() - t < 5); // at least 5 ms on the clock the recorder reads
    });
    const call = task.attempt({ streamed: true });
    await sleep(2);
    call.headers(200);
    for (let k = 0; k < 3; k++) { await sleep(1); call.token(); }
    call.end({ ok: true, usage: { input_tokens: 10 + i, output_tokens: 3 } });
  });
  task.complete({ output: "answer " + i, valid: true, quality_ok: true });
  task.responded();
}
rec.begin({ class: "chat", request_id: "n-2" }).fail("http_error", "http_502");
const clock = await routes(new Request("http://127.0.0.1/_goodput/clock")).json();
const now = clock.service_ms;
const page = { request_id: "n-0", action_ms: now - 60, sent_ms: now - 55, first_byte_ms: now - 20,
  first_paint_ms: now - 18, last_byte_ms: now - 5, rendered_ms: now - 2, clock_offset_ms: 0, clock_error_ms: 0.5 };
const res = await routes(new Request("http://127.0.0.1/_goodput/page", { method: "POST", body: JSON.stringify(page) }));
if (res.status !== 204) throw new Error("page record refused: " + res.status);
await rec.close();
console.log(JSON.stringify(rec.stats()));
`;

Deno.test("the Node bundle records on Node 20 with the real clock: the folder reads as a production run", async () => {
  const built = await new Deno.Command(Deno.execPath(), { args: ["task", "recorder-node"], cwd: ROOT }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  const t = tempOut();
  try {
    const script = `${t.dir}/service.mjs`;
    Deno.writeTextFileSync(script, SCRIPT);
    // node must be on PATH (.ci/run installs the pinned toolchain with it): its absence fails this test.
    const ran = await new Deno.Command("node", { args: [script, t.out], cwd: t.dir }).output();
    const stderr = new TextDecoder().decode(ran.stderr);
    assert.equal(ran.code, 0, stderr);
    const stats = JSON.parse(new TextDecoder().decode(ran.stdout));
    assert.deepEqual([stats.begun, stats.written, stats.recorder_errors, stats.page_records_unjoined], [3, 3, 0, 0]);

    const m = readManifest(t.out);
    assert.match(m.recorder.runtime, /^node v\d+\./);
    assert.equal(m.recorder.writer, "thread", "written by the bundle's writer thread (writer_worker.mjs)");
    assert.equal(m.observation.status, "closed");
    assert.deepEqual(m.parts.map((p) => [p.format, p.requests]), [["parquet", 3]]);
    const requests = await readTable(t.out, "requests");
    // Sorted by id: n-0 waited for its page record, so the flush timer may write n-1 first.
    const byId = requests.map((r) => [r.request_id, r.outcome, r.input_tokens]).sort((a, b) => a < b ? -1 : 1);
    assert.deepEqual(byId, [["n-0", "ok", 10], ["n-1", "ok", 11], ["n-2", "http_error", 0]]);
    const n0 = requests.find((r) => r.request_id === "n-0")!;
    const n1 = requests.find((r) => r.request_id === "n-1")!;
    // n-1 has no page: scheduled at begin, completed at complete(); its retrieval (≥ 5 ms) precedes its call.
    assert.ok(n1.completed_ms! > n1.scheduled_ms + 5);
    assert.ok(n1.first_token_ms! > n1.first_sent_ms!);
    // n-0's times are its page's: action → rendered is 58 ms by construction (now − 60 → now − 2).
    assert.equal(Math.round((n0.completed_ms! - n0.scheduled_ms) * 1000) / 1000, 58);
    const phases = (await readTable(t.out, "phases")).filter((p) => p.request_id === "n-0").map((p) => p.phase);
    assert.deepEqual(phases.sort(), ["network_down", "network_up", "page", "render", "service"].sort());
    const tools = await readTable(t.out, "tools");
    const steps = tools.map((x) => [x.request_id, x.tool, x.ok]).sort((a, b) => a < b ? -1 : 1);
    assert.deepEqual(steps, [["n-0", "retrieval", true], ["n-1", "retrieval", true]]);
    assert.ok(tools.every((x) => x.ended_ms - x.started_ms >= 5), "a step of at least 5 ms");
  } finally {
    t.remove();
  }
});
