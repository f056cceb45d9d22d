import assert from "node:assert/strict";
import { join } from "node:path";
import { alternatives } from "../../../analysis/audit/alternatives.ts";
import { audit } from "../../../analysis/audit/audit.ts";
import type { ResolvedClaim } from "../../../analysis/audit/claim.ts";
import { latencyTable } from "../../../analysis/latency/latency.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { claimMoves, formatClaimMoves, formatLatency } from "../../../analysis/notebook/notebook_helpers.ts";
import { outagePeriods } from "../../../analysis/recovery/outages.ts";
import { writeRun } from "../_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";

Deno.test("claimMoves() on the hand fixture moves one rule at a time from the stated ones", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const run = await loadRun(writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables()));
  // Window low + peak: 23 offered, 21 sent (client_shed and not_sent out), 15 completed, 5 accepted; 10 without gates.
  const claim: ResolvedClaim = {
    metric: "acceptance_rate",
    value: 5 / 23,
    class: null,
    stage: null,
    denominator: "offered",
    gates: true,
    window: POLICY.window,
    source: "test",
  };
  const moves = claimMoves(run, claim, { policy: POLICY });
  const value = (rule: string, choice: RegExp) => moves.find((m) => m.rule === rule && choice.test(m.choice))?.value;

  await t.step("the stated rules reproduce the claim", () => {
    assert.equal(moves[0]!.rule, "as stated");
    assert.equal(moves[0]!.value, 5 / 23);
    assert.equal(moves[0]!.match, true);
    assert.match(moves[0]!.choice, /denominator offered, window policy, SLO stated, gates on/);
  });

  await t.step("each other denominator, the gates and the windows move it by hand-computed amounts", () => {
    assert.equal(value("denominator", /sent/), 5 / 21);
    assert.equal(value("denominator", /completed/), 5 / 15);
    assert.equal(value("gates", /no gate/), 10 / 23);
    // w1 (warm-up, accepted) put back: 6 / 24; whole run adds w2 (drain, accepted) too: 7 / 25.
    assert.equal(value("window", /warm-up/), 6 / 24);
    assert.equal(value("window", /whole run/), 7 / 25);
    assert.deepEqual(moves.filter((m) => m.rule !== "as stated").map((m) => m.match), moves.slice(1).map(() => false));
  });

  await t.step("latency limits × 2 agree with the alternatives table; none at all accepts at least as many", () => {
    const lenient = alternatives(run, POLICY, { lenient_factor: 2 }).rows
      .find((r) => r.window === "policy" && r.slo === "lenient" && r.gates === "on" && r.denominator === "offered")!;
    assert.equal(value("SLO", /× 2/), lenient.acceptance_rate);
    assert.ok(value("SLO", /no latency/)! >= lenient.acceptance_rate!);
    assert.ok(value("SLO", /no latency/)! > 5 / 23, "the fixture has late requests");
  });

  await t.step("each move equals the audit of the claim with that one rule restated", () => {
    const stated = (c: Partial<ResolvedClaim>) => audit(run, { ...claim, ...c }, { policy: POLICY }).stated.value;
    assert.equal(value("denominator", /completed/), stated({ denominator: "completed" }));
    assert.equal(value("gates", /no gate/), stated({ gates: false }));
    assert.equal(value("window", /whole run/), stated({ window: { exclude_stage_kinds: [] } }));
    // Unstated rules are filled as the audit fills them: the policy's window, gates on, offered for acceptance.
    const bare: ResolvedClaim = { metric: "acceptance_rate", value: 0.5, class: null, stage: null, source: "test" };
    const bareMoves = claimMoves(run, bare, { policy: POLICY });
    assert.equal(bareMoves[0]!.value, audit(run, bare, { policy: POLICY }).stated.value);
    assert.equal(
      bareMoves.find((m) => m.rule === "window" && /warm-up/.test(m.choice))!.value,
      audit(run, { ...bare, warmup_included: true }, { policy: POLICY }).stated.value,
    );
  });

  await t.step("formatClaimMoves() prints one line per move with its difference", () => {
    const text = formatClaimMoves(moves).split("\n");
    assert.equal(text.length, moves.length + 1);
    assert.match(text[1]!, /^as stated .* yes$/);
  });
});

Deno.test("formatLatency() prints n, CI and UNSUPPORTED, leaving out metrics without samples", async () => {
  const tmp = Deno.makeTempDirSync();
  const run = await loadRun(writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables()));
  const table = latencyTable(run, { percentiles: [0.5, 0.99] }).filter((r) => r.metric !== "tool_ms");
  // A metric without samples, as a class without tool calls has.
  const empty = table.filter((r) => r.metric === "e2e_ms")
    .map((r) => ({ ...r, metric: "tool_ms" as const, n: 0, value: null, lower: null, upper: null }));
  const rows = [...table, ...empty];
  const text = formatLatency(rows, { metrics: ["e2e_ms", "tool_ms"], byClass: false });
  const e2e = rows.find((r) => r.class === null && r.stage === null && r.metric === "e2e_ms" && r.p === 0.99)!;
  assert.ok(!e2e.supported, "a p99 from a handful of requests is unsupported");
  assert.match(text, new RegExp(`all\\s+e2e_ms\\s+${e2e.n}\\s`));
  assert.match(text, /UNSUPPORTED/);
  assert.doesNotMatch(text, /tool_ms/, "no line for a metric without samples");
});

Deno.test("outagePeriods() shades from the first down attempt to the first answered one, or the last down", () => {
  const base = { down_attempts: 3, requests_hit: 3, by_kind: {}, server: null };
  const periods = outagePeriods({
    rule: "",
    planned: null,
    outages: [
      { ...base, start_ms: 1000, last_down_ms: 1800, end_ms: 2500, duration_ms: 1500 },
      { ...base, start_ms: 9000, last_down_ms: 9600, end_ms: null, duration_ms: null },
    ],
  });
  assert.deepEqual(periods, [
    { start_ms: 1000, end_ms: 2500, label: "outage 1" },
    { start_ms: 9000, end_ms: 9600, label: "outage 2 (not back)" },
  ]);
});
