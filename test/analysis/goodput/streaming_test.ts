/**
 * Streaming semantics, by hand: an unstreamed class has no TTFT or TPOT
 * (null, never 0) and is judged by its e2e limit; TTFT of a multi-round
 * request is its first round's first token, the same in the classification,
 * the latency table and the CDF figure; a 1.0 log's unstreamed answers are
 * inferred from a whole body arriving at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { classify } from "../../../analysis/goodput/classify.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { latencyTable } from "../../../analysis/latency/latency.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { resolveWindow } from "../../../analysis/goodput/policy.ts";
import { latencyCdfFigure, latencyCdfInput } from "../../../analysis/plots/latency_cdf.ts";
import { sloSweepInput } from "../../../analysis/plots/slo_sweep.ts";
import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, type RunTables, writeRun } from "../_fixture.ts";

const STAGES: Stage[] = [{ name: "s", kind: "steady", start_ms: 0, end_ms: 10_000, offered_rps: 1 }];
const QUIET = { onWarning: () => {} };

/** qa and agent are streamed, json is not; every class has TTFT and TPOT limits. */
const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: {
    qa: { e2e_ms: 1000, ttft_ms: 300, tpot_ms: 50, gates: ["output_valid", "quality_ok"] },
    json: { e2e_ms: 2000, ttft_ms: 300, tpot_ms: 20, gates: ["output_valid", "schema_ok", "quality_ok"] },
    agent: { e2e_ms: 5000, ttft_ms: 500, tpot_ms: 50, gates: ["output_valid", "quality_ok"] },
  },
  default: { e2e_ms: 1000, gates: [] },
};

/** A non-streamed answer as the runner logs it: one attempt whose tokens all arrive with the body at `body`. */
function unstreamed(id: string, t: number, body: number, over: Partial<RequestRow> = {}) {
  const r = req({
    request_id: id,
    class: "json",
    stage: "s",
    scheduled_ms: t,
    first_token_ms: t + body,
    completed_ms: t + body + 10, // + the checks' time
    output_tokens: 40,
    schema_ok: true,
    streamed: false,
    ...over,
  });
  const a = att({
    request_id: id,
    sent_ms: t,
    first_token_ms: t + body,
    last_token_ms: t + body,
    completed_ms: t + body,
    output_tokens: 40,
    streamed: false,
  });
  return { r, a: [a] };
}

/** A streamed one-round answer: first token at ttft, `out` tokens over `span` ms, checks done 0 ms later. */
function streamed(id: string, t: number, ttft: number, span: number, out: number) {
  const r = req({
    request_id: id,
    class: "qa",
    stage: "s",
    scheduled_ms: t,
    first_token_ms: t + ttft,
    completed_ms: t + ttft + span,
    output_tokens: out,
  });
  const a = att({
    request_id: id,
    sent_ms: t,
    first_token_ms: t + ttft,
    last_token_ms: t + ttft + span,
    completed_ms: t + ttft + span,
    output_tokens: out,
    itl_p50_ms: out > 1 ? span / (out - 1) : null,
  });
  return { r, a: [a] };
}

/** A streamed two-round tool request: round 0 streams a tool call from `first`; round 1 the answer from `final`. */
function agent(id: string, t: number, first: number, final: number, span: number, out: number) {
  const r = req({
    request_id: id,
    class: "agent",
    stage: "s",
    scheduled_ms: t,
    first_token_ms: t + first, // the runner records the first round's first token
    completed_ms: t + final + span,
    rounds: 2,
    tool_calls: 1,
    output_tokens: 3 + out,
  });
  const a: AttemptRow[] = [
    att({
      request_id: id,
      sent_ms: t,
      first_token_ms: t + first,
      last_token_ms: t + first + 100,
      completed_ms: t + first + 100,
      output_tokens: 3,
      itl_p50_ms: 50,
    }),
    att({
      request_id: id,
      round: 1,
      sent_ms: t + first + 200,
      first_token_ms: t + final,
      last_token_ms: t + final + span,
      completed_ms: t + final + span,
      output_tokens: out,
      itl_p50_ms: span / (out - 1),
    }),
  ];
  return { r, a };
}

/** Each comment: the first failing reason under POLICY, then what the old rule (TTFT = body time, TPOT 0) gave. */
function tables(): RunTables {
  const parts = [
    unstreamed("j1", 1000, 1500), // accepted: e2e 1510 ≤ 2000 (was late_ttft: 1500 > 300)
    unstreamed("j2", 2000, 2590), // late_e2e: 2600 > 2000
    unstreamed("j3", 3000, 890, { schema_ok: false }), // gate_schema_ok (was late_ttft: 890 > 300)
    streamed("q1", 4000, 200, 500, 11), // accepted: TTFT 200, TPOT 500 / 10 = 50 (= the limit)
    streamed("q2", 4500, 400, 500, 11), // late_ttft: 400 > 300
    streamed("q3", 5000, 200, 0, 1), // accepted: one token, TPOT undefined (not a streaming matter)
    agent("a1", 6000, 300, 1500, 1000, 21), // accepted: TTFT 300 (round 0) ≤ 500; TPOT 1000 / 20 = 50
    agent("a2", 7000, 600, 1200, 300, 11), // late_ttft: round 0's first token at 600 > 500; TPOT 300 / 10 = 30
  ];
  return { requests: parts.map((p) => p.r), attempts: parts.flatMap((p) => p.a) };
}

async function write(minor: number): Promise<LoadedRun> {
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(STAGES), tables(), minor);
  return await loadRun(dir, QUIET);
}

const byId = (run: LoadedRun, policy: SloPolicy) => {
  const rows = classify(run, policy, resolveWindow(STAGES, policy.window)).toRecords();
  return Object.fromEntries(rows.map((r) => [r.request_id as string, r]));
};

Deno.test("an unstreamed class has no TTFT or TPOT and is judged by its e2e limit", async (t) => {
  const run = await write(1);
  const rows = byId(run, POLICY);
  await t.step("classification: TTFT and TPOT null (never 0), the TTFT/TPOT limits not applied", () => {
    for (const id of ["j1", "j2", "j3"]) {
      assert.deepEqual([rows[id]!.ttft_ms, rows[id]!.tpot_ms, rows[id]!.streaming], [null, null, "not_streamed"], id);
    }
    assert.equal(rows.j1!.e2e_ms, 1510);
    assert.deepEqual(
      Object.values(rows).map((r) => [r.request_id, r.reason]),
      [
        ["j1", null],
        ["j2", "late_e2e"],
        ["j3", "gate_schema_ok"],
        ["q1", null],
        ["q2", "late_ttft"],
        ["q3", null],
        ["a1", null],
        ["a2", "late_ttft"],
      ],
    );
  });
  await t.step("goodput: json accepts 1 of 3, and its SLO line says the TTFT/TPOT limits do not apply", () => {
    const g = goodput(run, POLICY);
    // Accepted: j1 q1 q3 a1 = 4 of 8; json 1 of 3 (the old rule: 0 of 3, j1 and j3 late_ttft).
    assert.deepEqual([g.overall.accepted, g.overall.offered, g.overall.failures.late_ttft], [4, 8, 2]);
    const json = g.by_class.find((r) => r.class === "json")!;
    assert.deepEqual([json.accepted, json.offered, json.failures.late_e2e, json.failures.late_ttft], [1, 3, 1, 0]);
    const d = g.disclosure;
    assert.equal(
      d.slo_rules.json,
      "json: e2e ≤ 2000 ms; TTFT/TPOT limits not applicable (not streamed); gates output_valid, schema_ok, quality_ok",
    );
    assert.equal(d.slo_rules.qa, "qa: e2e ≤ 1000 ms, TTFT ≤ 300 ms, TPOT ≤ 50 ms; gates output_valid, quality_ok");
    assert.deepEqual(d.streaming.json, {
      streamed: 0,
      not_streamed: 3,
      assumed_streamed: 0,
      inferred_not_streamed: 0,
    });
    assert.deepEqual([d.streaming.qa!.streamed, d.streaming.agent!.streamed], [3, 2]);
    assert.match(d.ttft_definition, /first model round/);
    assert.match(d.tpot_definition, /not observable \(null, never 0\)/);
  });
  await t.step("latency table: TTFT and TPOT percentiles exclude what has none, and say how many", () => {
    const rows = latencyTable(run, { percentiles: [0.5] });
    const row = (cls: string | null, metric: string) =>
      rows.find((r) => r.class === cls && r.stage === null && r.metric === metric)!;
    // TTFT of the 5 streamed: q1 200, q3 200, a1 300, q2 400, a2 600 → p50 = rank 3 = 300; j1–j3 excluded.
    assert.deepEqual([row(null, "ttft_ms").n, row(null, "ttft_ms").value], [5, 300]);
    assert.deepEqual([row(null, "ttft_ms").excluded, row(null, "ttft_ms").excluded_not_streamed], [3, 3]);
    // TPOT: a2 30, q1 50, q2 50, a1 50 → n 4, p50 = rank 2 = 50; excluded j1–j3 (not streamed) + q3 (1 token) = 4.
    // The old rule had n 7 with three zeros (j1–j3: (body − body) / 39 = 0) and p50 = rank 4 = 30.
    assert.deepEqual([row(null, "tpot_ms").n, row(null, "tpot_ms").value], [4, 50]);
    assert.deepEqual([row(null, "tpot_ms").excluded, row(null, "tpot_ms").excluded_not_streamed], [4, 3]);
    assert.deepEqual([row("json", "ttft_ms").n, row("json", "ttft_ms").value, row("json", "ttft_ms").excluded], [
      0,
      null,
      3,
    ]);
    // e2e has every completed request: nothing excluded; send lag is not over completed requests: null.
    assert.deepEqual([row(null, "e2e_ms").n, row(null, "e2e_ms").excluded], [8, 0]);
    assert.equal(row(null, "send_lag_ms").excluded, null);
  });
  await t.step("figures: the json TTFT curve is empty, with no limit line, and the sweep marks no json limit", () => {
    const cdf = latencyCdfInput(run, POLICY, "ttft_ms");
    const json = cdf.series.find((s) => s.class === "json")!;
    assert.deepEqual([json.values.length, json.limit_ms, json.not_streamed], [0, null, 3]);
    assert.match(cdf.disclosure, /3 completed not streamed: no ttft_ms/);
    assert.equal(latencyCdfInput(run, POLICY, "e2e_ms").series.find((s) => s.class === "json")!.limit_ms, 2000);
    // The figure draws the two streamed classes and says why json has no curve.
    const fig = latencyCdfFigure(cdf);
    assert.deepEqual(fig.data.map((d) => String(d.name).split(" ")[0]), ["agent", "qa"]);
    assert.ok(fig.notes.includes("no curve: json (3 completed, not streamed)"), fig.notes.join("\n"));
    const sweep = sloSweepInput(run, POLICY, { metric: "ttft_ms", points: 10 });
    const js = sweep.series.find((s) => s.class === "json")!;
    // Eligible without the TTFT limit: j1 (j2 late, j3 schema): accepted at every limit, 1 of 3 offered.
    assert.deepEqual([js.limit_ms, js.not_streamed, [...new Set(js.curve.acceptance_rate)]], [null, 3, [1 / 3]]);
  });
});

Deno.test("TTFT of a multi-round request is its first round's first token, everywhere", async () => {
  const run = await write(1);
  const rows = byId(run, POLICY);
  // a1: round 0's first token at 6300 − 6000 = 300 (the final round's at 1500); a2: 600.
  assert.deepEqual([rows.a1!.ttft_ms, rows.a2!.ttft_ms], [300, 600]);
  // TPOT from the last round: a1 (8500 − 7500) / (21 − 1) = 50, a2 (8500 − 8200) / (11 − 1) = 30.
  assert.deepEqual([rows.a1!.tpot_ms, rows.a2!.tpot_ms], [50, 30]);
  const table = latencyTable(run, { percentiles: [0.5, 1] });
  const agentTtft = table.filter((r) => r.class === "agent" && r.stage === null && r.metric === "ttft_ms");
  // p50 of [300, 600] = rank 1 = 300; p100 = 600: the same values as the classification.
  assert.deepEqual(agentTtft.map((r) => r.value), [300, 600]);
  const cdf = latencyCdfInput(run, POLICY, "ttft_ms").series.find((s) => s.class === "agent")!;
  assert.deepEqual([...Float64Array.from(cdf.values).sort()], [300, 600]);
});

Deno.test("a 1.0 log: unstreamed answers are inferred from a whole body at once, and the disclosure says so", async () => {
  const run = await write(0);
  assert.equal(run.manifest.schema_minor, 0);
  assert.equal(run.requests.getColumn("streamed").nullCount(), run.requests.height);
  const rows = byId(run, POLICY);
  // j1–j3: first = last token time, no inter-token gap, 40 tokens: inferred not streamed. q3 (one token, first = last)
  // is not: a single token says nothing about streaming, so the 1.0 rule (streamed) holds and its TTFT counts.
  assert.deepEqual(
    ["j1", "j3", "q1", "q3", "a1"].map((id) => rows[id]!.streaming),
    ["inferred_not_streamed", "inferred_not_streamed", "assumed_streamed", "assumed_streamed", "assumed_streamed"],
  );
  const g = goodput(run, POLICY);
  // The same judgement as the 1.1 log: 4 of 8 accepted, json 1 of 3.
  assert.deepEqual([g.overall.accepted, g.by_class.find((r) => r.class === "json")!.accepted], [4, 1]);
  assert.equal(
    g.disclosure.slo_rules.json,
    "json: e2e ≤ 2000 ms; TTFT/TPOT limits not applicable (not streamed; inferred for 3 from a 1.0 log); gates " +
      "output_valid, schema_ok, quality_ok",
  );
  assert.ok(g.disclosure.inclusion_rules.some((r) => /contract 1\.0 log: streaming and gate applicability/.test(r)));
  assert.match(g.disclosure.streaming_rule, /inferred not streamed when the final answered attempt/);
});

Deno.test("the real 1.0 run: every answer of its streamed class is assumed streamed, none inferred", async () => {
  const run = await loadRun(new URL("../../testdata/contract-1.0", import.meta.url).pathname, QUIET);
  const g = goodput(run, {
    denominator: "offered",
    window: { exclude_stage_kinds: [] },
    classes: {},
    default: { e2e_ms: 60_000, ttft_ms: 60_000, gates: [] },
  });
  const completed = g.by_class.find((r) => r.class === "safety")!.completed;
  assert.ok(completed > 0);
  assert.deepEqual(g.disclosure.streaming.safety, {
    streamed: 0,
    not_streamed: 0,
    assumed_streamed: completed,
    inferred_not_streamed: 0,
  });
});
