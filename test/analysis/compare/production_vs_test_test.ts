import assert from "node:assert/strict";
import { join } from "node:path";
import { formatProductionVsTest, productionVsTest, productionVsTestFindings } from "../../../analysis/compare/mod.ts";
import { productionVsTestFigure, productionVsTestWaitFigure } from "../../../analysis/plots/mod.ts";
import { loadRun } from "../../../analysis/run/mod.ts";
import { InputError } from "../../../schema/errors.ts";
import type { AttemptRow, RequestRow, ToolRow } from "../../../schema/events.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";
import { phase, productionManifest, toolRow, writeProduction } from "../_production_fixture.ts";

/** chat: e2e ≤ 500 ms (inclusive), no gate: acceptance is the deadline alone. */
const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: { chat: { e2e_ms: 500, gates: [] } },
  default: { e2e_ms: 500, gates: [] },
};

const task = (id: string, s: number, sent: number, ft: number, end: number, stage: string): RequestRow =>
  req({
    request_id: id,
    class: "chat",
    stage,
    scheduled_ms: s,
    first_sent_ms: sent,
    first_token_ms: ft,
    completed_ms: end,
  });
const model = (id: string, sent: number, end: number): AttemptRow =>
  att({ request_id: id, sent_ms: sent, first_token_ms: sent + 1, completed_ms: end });

/** The page's phases of a task: page, network up, service, network down, render, 10 ms each but the service's. */
const pagePhases = (id: string, s: number, end: number) => [
  phase(id, "page", s, s + 10),
  phase(id, "network_up", s + 10, s + 20),
  phase(id, "service", s + 20, end - 20),
  phase(id, "network_down", end - 20, end - 10),
  phase(id, "render", end - 10, end),
];

/**
 * The recording (class chat), each task: page 10, network 10 + 10 = 20, render 10 ms.
 * P1 1000 → 1400 (e2e 400, TTFT 100): queue 1020–1050 (30), retrieval 1050–1080 (30), model 1080–1370 (290),
 *   other [1370, 1380] 10. Outside the model: 400 − 290 = 110.
 * P2 2000 → 2600 (600, TTFT 200): queue 2020–2120 (100), retrieval 2120–2150 (30), tool order_status 2150–2210 (60),
 *   model 2210–2570 (360), other 10. Outside: 240.
 * P3 3000 → 3500 (500, TTFT 150): queue 3020–3030 (10), retrieval 3030–3060 (30), model 3060–3470 (410), other 10.
 *   Outside: 90.
 */
function recording(): string {
  const tools: ToolRow[] = [
    toolRow("P1", "retrieval", 1050, 1080),
    toolRow("P2", "retrieval", 2120, 2150),
    toolRow("P2", "order_status", 2150, 2210),
    toolRow("P3", "retrieval", 3030, 3060),
  ];
  return writeProduction(join(Deno.makeTempDirSync(), "rec"), productionManifest(), [{
    format: "parquet",
    requests: [
      task("P1", 1000, 1010, 1100, 1400, "w0000"),
      task("P2", 2000, 2010, 2200, 2600, "w0000"),
      task("P3", 3000, 3010, 3150, 3500, "w0000"),
    ],
    attempts: [model("P1", 1080, 1370), model("P2", 2210, 2570), model("P3", 3060, 3470)],
    tools,
    phases: [
      ...pagePhases("P1", 1000, 1400),
      phase("P1", "queue", 1020, 1050),
      ...pagePhases("P2", 2000, 2600),
      phase("P2", "queue", 2020, 2120),
      ...pagePhases("P3", 3000, 3500),
      phase("P3", "queue", 3020, 3030),
    ],
  }]);
}

/**
 * The load test (class chat, no phases: page = the send lag minus what retrieval covers):
 * T1 0 → 300 (e2e 300, TTFT 80): retrieval 5–30, sent 30, model 30–290 (260); page [0, 30] − [5, 30] = 5; other 10.
 *   Outside: 40.
 * T2 1000 → 1500 (500, TTFT 100): retrieval 1002–1027, sent 1030, model 1030–1490 (460); page 2 + 3 = 5; other 10.
 *   Outside: 40.
 * T3 2000 → 2250 (250, TTFT 60): retrieval 2000–2025, sent 2025, model 2025–2245 (220); page 0; other 5. Outside: 30.
 */
function loadTest(): string {
  const stage = { name: "s", kind: "steady" as const, start_ms: 0, end_ms: 3000, offered_rps: 1 };
  const m = makeManifest([stage]);
  const manifest = { ...m, run_id: "lt", workload: { ...m.workload, name: "chat", classes: ["chat"] } };
  return writeRun(join(Deno.makeTempDirSync(), "lt"), manifest, {
    requests: [
      task("T1", 0, 30, 80, 300, "s"),
      task("T2", 1000, 1030, 1100, 1500, "s"),
      task("T3", 2000, 2025, 2060, 2250, "s"),
    ],
    attempts: [model("T1", 30, 290), model("T2", 1030, 1490), model("T3", 2025, 2245)],
    tools: [
      { ...toolRow("T1", "retrieval", 5, 30), run_id: "lt" },
      { ...toolRow("T2", "retrieval", 1002, 1027), run_id: "lt" },
      { ...toolRow("T3", "retrieval", 2000, 2025), run_id: "lt" },
    ],
  });
}

const close = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);

Deno.test("productionVsTest() puts a recording beside its load test: latency, acceptance, the wait outside the model, what the test missed", async (t) => {
  const prod = await loadRun(recording());
  const lt = await loadRun(loadTest());
  const r = productionVsTest(prod, lt, POLICY);

  await t.step("latency: nearest-rank percentiles of each run with n, difference = production − load test", () => {
    const at = (metric: string, p: number) =>
      r.latency.find((x) => x.class === "chat" && x.metric === metric && x.p === p)!;
    // Production e2e [400, 500, 600]: p50 = x₍⌈1.5⌉₎ = x₂ = 500, p95 = x₍⌈2.85⌉₎ = x₃ = 600.
    // Load test e2e [250, 300, 500]: p50 = 300, p95 = 500. Differences 200 and 100.
    assert.deepEqual([at("e2e_ms", 0.5).production.value, at("e2e_ms", 0.5).test.value], [500, 300]);
    assert.deepEqual([at("e2e_ms", 0.95).production.value, at("e2e_ms", 0.95).test.value], [600, 500]);
    assert.equal(at("e2e_ms", 0.5).difference_ms, 200);
    assert.equal(at("e2e_ms", 0.95).difference_ms, 100);
    // TTFT: production [100, 150, 200] → p50 150; the test [60, 80, 100] → p50 80: +70.
    assert.equal(at("ttft_ms", 0.5).difference_ms, 70);
    assert.deepEqual([at("ttft_ms", 0.5).production.n, at("ttft_ms", 0.5).test.n], [3, 3]);
    assert.deepEqual([...new Set(r.latency.map((x) => x.class))], ["chat", null]);
  });

  await t.step("acceptance under the one policy: production 2/3 (P2's 600 ms > 500), the test 3/3", () => {
    const all = r.acceptance.find((a) => a.class === null)!;
    assert.deepEqual([all.production.accepted, all.production.offered], [2, 3]);
    assert.deepEqual([all.test.accepted, all.test.offered], [3, 3]);
    close(all.difference, 2 / 3 - 1, "difference"); // −1/3
  });

  await t.step("outside the model: production 440/1500, the test 110/1050, medians 110 and 40 ms", () => {
    const o = r.outside_model.find((x) => x.class === null)!;
    // Production Σ (e2e − model) = 110 + 240 + 90 = 440 over Σ e2e = 400 + 600 + 500 = 1500.
    close(o.production.pooled_share, 440 / 1500, "production");
    // The test: 40 + 40 + 30 = 110 over 300 + 500 + 250 = 1050.
    close(o.test.pooled_share, 110 / 1050, "test");
    close(o.difference, 440 / 1500 - 110 / 1050, "difference");
    // Medians (nearest rank, x₂): production [90, 110, 240] → 110; the test [30, 40, 40] → 40.
    assert.deepEqual([o.production.median_ms, o.test.median_ms], [110, 40]);
    assert.deepEqual([o.production.n, o.test.n], [3, 3]);
  });

  await t.step("not seen: network, queue and render (not measured), tools (0 ms); page and retrieval were seen", () => {
    const chat = r.unseen.filter((u) => u.class === "chat");
    assert.deepEqual(chat.map((u) => [u.segment, u.test]), [
      ["network", "not measured"],
      ["queue", "not measured"],
      ["tools", "0 ms"],
      ["render", "not measured"],
    ]);
    const by = (s: string) => chat.find((u) => u.segment === s)!.production;
    close(by("network").pooled_share, 60 / 1500, "network"); // 20 ms × 3 tasks
    close(by("queue").pooled_share, 140 / 1500, "queue"); // 30 + 100 + 10
    close(by("tools").pooled_share, 60 / 1500, "tools"); // P2's order_status
    assert.deepEqual([by("queue").median_ms, by("queue").p95_ms], [30, 100]); // [10, 30, 100]: x₂, x₃
    assert.deepEqual([by("tools").median_ms, by("tools").p95_ms], [0, 60]); // [0, 0, 60]
    assert.deepEqual(r.unseen.filter((u) => u.class === null).map((u) => u.segment), chat.map((u) => u.segment));
  });

  await t.step("the text, the findings and both figures carry the numbers with their n", () => {
    const text = formatProductionVsTest(r);
    assert.match(text, /chat\s+e2e_ms\s+p50\s+500 \(n 3, \?\)\s+300 \(n 3, \?\)\s+\+200/);
    assert.match(text, /all\s+2\/3 66\.7 %\s+3\/3 100\.0 %\s+−33\.3 points/);
    const findings = productionVsTestFindings(r).join("\n");
    assert.match(findings, /production 2 of 3 \(66\.7 %\), the load test 3 of 3 \(100\.0 %\)/);
    assert.match(findings, /29\.3 % of production's waiting time \(Σ \(e2e − model\) \/ Σ e2e over 3 completed tasks/);
    assert.match(findings, /queue \(not measured in the load test; in production 9\.3 % of the waiting time/);
    const lat = productionVsTestFigure(r);
    assert.equal(lat.data.length, 4);
    assert.deepEqual(lat.data[2]!.y, [500, 600, 500, 600]); // e2e production: chat p50, p95, all p50, p95
    const wait = productionVsTestWaitFigure(r);
    assert.match(wait.disclosure, /production 29\.3 % of 3 tasks' waiting time/);
    assert.ok(wait.data.some((d) => d.name === "queue") && wait.data.some((d) => d.name === "model"));
  });

  await t.step("refused: a first run that is not a recording, and runs of different workloads", async () => {
    assert.throws(
      () => productionVsTest(lt, prod, POLICY),
      (e) => e instanceof InputError && /kind production/.test(e.message),
    );
    const m = makeManifest([{ name: "s", kind: "steady", start_ms: 0, end_ms: 3000, offered_rps: 1 }]);
    const other = await loadRun(
      writeRun(join(Deno.makeTempDirSync(), "x"), {
        ...m,
        workload: { ...m.workload, name: "other", classes: ["chat"] },
      }, { requests: [], attempts: [] }),
    );
    assert.throws(
      () => productionVsTest(prod, other, POLICY),
      (e) => e instanceof InputError && e.problems.some((p) => /workload\.name: other/.test(p)),
    );
  });
});
