/**
 * Where the wait went, hand-computed: a task whose model calls overlap tool steps, a page-joined task, tasks with no
 * phase row (the send lag stands in for the page), a runner's run (network, queue and render n/a, not 0).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { waitBreakdown, type WaitBreakdownRow } from "../../../analysis/latency/wait_breakdown.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";
import { toolRow } from "../_production_fixture.ts";
// The recording and the arithmetic of every task's segments (A: model calls overlapping tool steps; B: page-joined;
// C, D: no phase row) are in _wait_fixture.ts.
import { WAIT_POLICY, waitRecording } from "./_wait_fixture.ts";

const QUIET = { onWarning: () => {} };

const close = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);
const rowOf = (rows: WaitBreakdownRow[], population: string, cls: string | null) =>
  rows.find((r) => r.population === population && r.class === cls)!;

Deno.test("waitBreakdown() splits each task's wait into disjoint segments, charged once in order", async (t) => {
  const w = waitBreakdown(await loadRun(waitRecording(), QUIET), WAIT_POLICY);
  const ms = (id: string) => w.tasks.toRecords().find((r) => r.request_id === id)!;
  await t.step("per task: model minus tools, network minus page, send lag minus retrieval", () => {
    const seg = ["page", "network", "queue", "retrieval", "model", "tools", "render", "other"];
    const row = (id: string) => seg.map((s) => ms(id)[`${s}_ms`]);
    assert.deepEqual(row("A"), [0, 0, 100, 100, 280, 150, 0, 370]);
    assert.deepEqual(row("B"), [12, 58, 50, 0, 750, 0, 60, 70]);
    assert.deepEqual(row("C"), [40, 0, 0, 0, 560, 100, 0, 100]);
    assert.deepEqual(row("D"), [100, 0, 0, 100, 400, 0, 0, 100]);
    assert.deepEqual(seg.map((s) => ms("A")[`has_${s}`]), [false, false, true, true, true, true, false, true]);
    assert.deepEqual(seg.map((s) => ms("C")[`has_${s}`]), [true, false, false, true, true, true, false, true]);
    assert.equal(w.tasks.height, 4); // F did not complete
  });
  await t.step("completed tasks overall: n, mean share, median and p95 of each segment", () => {
    const all = rowOf(w.rows, "completed", null);
    assert.equal(all.n, 4);
    // e2e [700, 800, 1000, 1000]: mean 875; nearest rank median ⌈0.5·4⌉ = 2nd = 800; p95 ⌈3.8⌉ = 4th = 1000.
    assert.deepEqual(all.e2e, { mean_ms: 875, median_ms: 800, p95_ms: 1000 });
    // page measured by B 12, C 40, D 100 (A has phases but no page phase): n 3; median ⌈1.5⌉ = 2nd = 40;
    // p95 ⌈2.85⌉ = 3rd = 100; share (12/1000 + 40/800 + 100/700) / 3 = (0.012 + 0.05 + 0.142857…) / 3.
    assert.equal(all.segments.page.n, 3);
    // Pooled over every task's wait: (12 + 40 + 100) / (1000 + 1000 + 800 + 700) = 152 / 3500.
    close(all.segments.page.pooled_share, 152 / 3500, "page pooled");
    const pooled = Object.values(all.segments).reduce((n, s) => n + (s.pooled_share ?? 0), 0);
    close(pooled, 1, "the pooled shares add up to 1");
    close(all.segments.page.mean_share, (0.012 + 0.05 + 100 / 700) / 3, "page share");
    assert.deepEqual([all.segments.page.median_ms, all.segments.page.p95_ms], [40, 100]);
    // network: B alone, 58 of 1000.
    assert.deepEqual([all.segments.network.n, all.segments.network.median_ms], [1, 58]);
    close(all.segments.network.mean_share, 0.058, "network share");
    // model [280, 400, 560, 750]: median 400, p95 750; share (0.28 + 0.75 + 0.7 + 400/700) / 4.
    assert.deepEqual([all.segments.model.n, all.segments.model.median_ms, all.segments.model.p95_ms], [4, 400, 750]);
    close(all.segments.model.mean_share, (0.28 + 0.75 + 0.7 + 400 / 700) / 4, "model share");
    // tools [0, 0, 100, 150]: median 0, p95 150; share (0.15 + 0.125) / 4 = 0.06875.
    assert.deepEqual([all.segments.tools.median_ms, all.segments.tools.p95_ms], [0, 150]);
    close(all.segments.tools.mean_share, 0.06875, "tools share");
    // other [70, 100, 100, 370]: median 100, p95 370; share (0.37 + 0.07 + 0.125 + 100/700) / 4.
    assert.deepEqual([all.segments.other.median_ms, all.segments.other.p95_ms], [100, 370]);
    close(all.segments.other.mean_share, (0.37 + 0.07 + 0.125 + 100 / 700) / 4, "other share");
  });
  await t.step("the wait outside the model server: e2e − model per task, mean share and pooled", () => {
    const all = rowOf(w.rows, "completed", null);
    // A 720, B 250, C 240, D 300: median ⌈2⌉ = 2nd of [240, 250, 300, 720] = 250, p95 720;
    // mean share (0.72 + 0.25 + 0.3 + 300/700) / 4; pooled (720 + 250 + 240 + 300) / 3500 = 1510 / 3500.
    assert.deepEqual([all.outside_model.median_ms, all.outside_model.p95_ms], [250, 720]);
    close(all.outside_model.mean_share, (0.72 + 0.25 + 0.3 + 300 / 700) / 4, "outside mean share");
    close(all.outside_model.pooled_share, 1510 / 3500, "outside pooled share");
  });
  await t.step("accepted tasks per class: chat A and B, summarize D alone", () => {
    assert.deepEqual(w.rows.map((r) => [r.population, r.class, r.n]), [
      ["accepted", "chat", 2],
      ["accepted", "summarize", 1],
      ["accepted", null, 3],
      ["completed", "chat", 2],
      ["completed", "summarize", 2],
      ["completed", null, 4],
    ]);
    const chat = rowOf(w.rows, "accepted", "chat");
    // queue A 100, B 50: median ⌈1⌉ = 1st = 50, p95 ⌈1.9⌉ = 2nd = 100; share (0.1 + 0.05) / 2 = 0.075.
    assert.deepEqual([chat.segments.queue.n, chat.segments.queue.median_ms, chat.segments.queue.p95_ms], [2, 50, 100]);
    close(chat.segments.queue.mean_share, 0.075, "chat queue share");
    // page: B alone (A measured none).
    assert.deepEqual([chat.segments.page.n, chat.segments.page.median_ms], [1, 12]);
    const summarize = rowOf(w.rows, "accepted", "summarize");
    // D: render and network not measured: n 0, every number null (n/a, not 0).
    assert.deepEqual(summarize.segments.render, {
      n: 0,
      mean_share: null,
      pooled_share: null,
      mean_ms: null,
      median_ms: null,
      p95_ms: null,
    });
    close(summarize.segments.page.mean_share, 100 / 700, "summarize page share");
  });
  await t.step("the disclosure: counts, phases, the recording's caveats", () => {
    const d = w.disclosure;
    assert.equal(d.run_kind, "production");
    assert.deepEqual(d.n, { accepted: 3, completed: 4 });
    assert.deepEqual(d.phases, { tasks_with_phases: 2, max_clock_error_ms: 0.5 });
    assert.deepEqual(d.not_measured, {});
    assert.equal(d.excluded, 0);
    assert.match(d.caveats[0]!, /^PRODUCTION RECORDING of chat-app 1\.4\.2/);
    assert.match(d.rules.overlap, /charged once, to the first of: page phase, network, queue, retrieval, tools, model/);
  });
});

Deno.test("waitBreakdown() on a runner's run: page is the send lag; network, queue and render n/a, not 0", async () => {
  const stage = { name: "steady", kind: "steady" as const, start_ms: 0, end_ms: 10_000, offered_rps: 1 };
  // R1: planned at 1000, sent 15 ms late, model 1015 → 1400, a tool 1400 → 1500 between rounds, model 1500 → 1800,
  // answered at 1820: page (send lag) 15; model 385 + 300 = 685; tools 100; other 1820 − 1800 = 20 (e2e 820).
  const r1 = req({
    request_id: "R1",
    class: "chat",
    stage: "steady",
    scheduled_ms: 1000,
    send_lag_ms: 15,
    first_sent_ms: 1015,
    completed_ms: 1820,
  });
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest([stage]), {
    requests: [r1],
    attempts: [
      att({ request_id: "R1", round: 0, sent_ms: 1015, completed_ms: 1400 }),
      att({ request_id: "R1", round: 1, sent_ms: 1500, completed_ms: 1800 }),
    ],
    tools: [{ ...toolRow("R1", "calculator", 1400, 1500), run_id: "fixture-run" }],
  });
  const w = waitBreakdown(await loadRun(dir, QUIET), {
    ...WAIT_POLICY,
    classes: {},
    default: { e2e_ms: 5000, gates: [] },
  });
  const all = rowOf(w.rows, "completed", null);
  assert.deepEqual(
    ["page", "model", "tools", "other"].map((s) => all.segments[s as "page"].median_ms),
    [15, 685, 100, 20],
  );
  for (const s of ["network", "queue", "render"] as const) {
    assert.deepEqual(all.segments[s], {
      n: 0,
      mean_share: null,
      pooled_share: null,
      mean_ms: null,
      median_ms: null,
      p95_ms: null,
    });
    assert.match(w.disclosure.not_measured[s]!, /the log has no phase rows/);
  }
  assert.equal(w.disclosure.run_kind, "runner");
  close(all.outside_model.mean_share, (820 - 685) / 820, "outside share");
});
