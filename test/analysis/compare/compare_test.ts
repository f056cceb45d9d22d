import assert from "node:assert/strict";
import { join } from "node:path";
import { comparability, compare, significantDrop } from "../../../analysis/compare/compare.ts";
import { formatCompare } from "../../../analysis/compare/format_compare.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { InputError } from "../../../schema/errors.ts";
import { makeManifest, req, writeRun } from "../_fixture.ts";

const STAGES: Stage[] = [{ name: "s", kind: "steady", start_ms: 0, end_ms: 10_000, offered_rps: 2 }];
const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: {},
  default: { e2e_ms: 1000, gates: ["output_valid"] },
};

/** `n` requests of `cls`, 1 s e2e limit: the first `accepted` finish in 100 ms, the rest in 2 s (late). */
function rows(prefix: string, cls: string, n: number, accepted: number): RequestRow[] {
  return Array.from({ length: n }, (_, i) => {
    const t = i * 100;
    return req({
      request_id: `${prefix}${i}`,
      class: cls,
      stage: "s",
      scheduled_ms: t,
      completed_ms: t + (i < accepted ? 100 : 2000),
    });
  });
}

async function run(dir: string, id: string, route: string, requests: RequestRow[], workloadSha = "0".repeat(64)) {
  const base = makeManifest(STAGES);
  const m = makeManifest(STAGES, {
    run_id: id,
    conditions: { ...base.conditions, route },
    workload: { ...base.workload, sha256: workloadSha },
  });
  writeRun(join(dir, id), m, { requests, attempts: [] });
  return await loadRun(join(dir, id));
}

Deno.test("compare: per-route goodput and acceptance from the same schedule", async () => {
  const dir = Deno.makeTempDirSync();
  // Route a: 20 of 20 "x" accepted; route b: 10 of 20. Window 10 s → 2.0 and 1.0 accepted/s.
  const a = await run(dir, "run-a", "hosted", rows("a", "x", 20, 20));
  const b = await run(dir, "run-b", "selfhosted", rows("b", "x", 20, 10));
  const result = compare([a, b], POLICY);
  assert.deepEqual(result.routes.map((r) => [r.route, r.overall.accepted, r.overall.accepted_goodput]), [
    ["hosted", 20, 2],
    ["selfhosted", 10, 1],
  ]);
  assert.equal(result.routes[1]!.by_class[0]!.acceptance_rate, 0.5);
  // 20 samples cannot support a p99: shown as null with its note, never bare.
  assert.equal(result.routes[0]!.by_class[0]!.e2e_p99_ms, null);
  assert.ok(result.routes[0]!.by_class[0]!.notes.some((n) => n.includes("p99")));
  assert.deepEqual(result.differences.map((d) => [d.field, d.blocking]), [["route", false]]);
});

Deno.test("compare refuses runs of different workloads unless forced", async () => {
  const dir = Deno.makeTempDirSync();
  const a = await run(dir, "run-a", "hosted", rows("a", "x", 4, 4));
  const b = await run(dir, "run-b", "selfhosted", rows("b", "x", 4, 4), "1".repeat(64));
  assert.throws(
    () => compare([a, b], POLICY),
    (e) => e instanceof InputError && /workload\.sha256/.test(e.message),
  );
  const forced = compare([a, b], POLICY, { force: true });
  assert.equal(forced.forced, true);
  assert.ok(comparability([a, b]).some((d) => d.field === "workload.sha256" && d.blocking));
});

Deno.test("compare: a class that loses acceptance in the mix is flagged as crowded out", async () => {
  const dir = Deno.makeTempDirSync();
  // Mixed: critical class "c" 10 of 40 accepted; alone on the same route: 38 of 40.
  const mixed = await run(dir, "mixed", "selfhosted", [...rows("c", "c", 40, 10), ...rows("e", "e", 40, 40)]);
  const other = await run(dir, "other", "hosted", [...rows("c", "c", 40, 40), ...rows("e", "e", 40, 40)]);
  const alone = await run(dir, "alone", "selfhosted", rows("k", "c", 40, 38));
  const result = compare([mixed, other], POLICY, { singleClassRuns: [alone] });
  assert.equal(result.crowding.length, 1);
  const row = result.crowding[0]!;
  assert.equal(row.mixed_acceptance, 0.25);
  assert.equal(row.alone_acceptance, 0.95);
  assert.ok(Math.abs(row.drop! - 0.7) < 1e-12);
  assert.equal(row.crowded_out, true);
});

Deno.test("significantDrop: a one-sided two-proportion z-test", () => {
  // 38/40 vs 10/40: z ≈ 6.4 → significant; 21/40 vs 20/40: z ≈ 0.22 → not.
  assert.equal(significantDrop(38, 40, 10, 40), true);
  assert.equal(significantDrop(21, 40, 20, 40), false);
  assert.equal(significantDrop(1, 0, 0, 1), false);
});

Deno.test("formatCompare() rounds knee and limit columns down and states the supported rule", async (t) => {
  const dir = Deno.makeTempDirSync();
  const a = await run(dir, "run-a", "hosted", rows("a", "x", 20, 20));
  const b = await run(dir, "run-b", "selfhosted", rows("b", "x", 20, 10));
  // Knee 9.05678 → 9.056 (to nearest 9.057); limit 7.5 × (1 − 0.095) = 6.7875 → 6.787 (to nearest 6.788).
  const extras = () => ({ knee_rps: 9.05678, "limit_rps @0.095": 6.7875, "cost/accepted USD": 0.123456 });
  await t.step("capacity columns rounded down, the others to 3 significant digits; JSON keeps the exact values", () => {
    const result = compare([a, b], POLICY, { extras });
    const text = formatCompare(result);
    assert.match(text, /^hosted\s+run-a\s+20\s+20\s+2\.000\s+1\.000\s+9\.056\s+6\.787\s+0\.123$/m);
    assert.doesNotMatch(text, /9\.057|6\.788/);
    assert.match(text, /knee_rps and limit_rps are rounded down to 4 significant digits, never up/);
    assert.equal(result.routes[0]!.extras["limit_rps @0.095"], 6.7875);
  });
  await t.step("two costs that differ print differently (0.0009 and 0.0009 at four decimals)", () => {
    const costs: Record<string, number> = { "run-a": 0.00092479, "run-b": 0.00093678 };
    const text = formatCompare(
      compare([a, b], POLICY, { extras: (r) => ({ "cost/accepted USD": costs[r.manifest.run_id]! }) }),
    );
    assert.match(text, /^hosted\s+run-a .* 0\.000925$/m);
    assert.match(text, /^selfhosted\s+run-b .* 0\.000937$/m);
  });
  await t.step("the per-class percentiles carry the rule and its confidence", () => {
    // 20 samples: p95 needs 90 (ln 0.01 / ln 0.95 = 89.8), p99 needs 459 at 99 %; at 90 %: 45 and 230.
    const text = formatCompare(compare([a, b], POLICY));
    assert.match(text, /early-stopping rule at 99 % one-sided confidence \(n ≥ 90 for p95, 459 for p99\)/);
    const loose = compare([a, b], POLICY, { supportConfidence: 0.9 });
    assert.equal(loose.support_confidence, 0.9);
    assert.match(formatCompare(loose), /at 90 % one-sided confidence \(n ≥ 45 for p95, 230 for p99\)/);
  });
});
