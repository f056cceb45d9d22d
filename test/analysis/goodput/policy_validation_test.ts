/**
 * Every SLO policy goes through one validation (`parseSloPolicy`, the zod
 * schema, strict), from a file or passed in code, and names the bad field;
 * a class the run's workload does not have is refused. The property test
 * mutates seeded random valid policies and passes each to every analysis
 * entry that takes a policy: none may accept it or fail inside.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { alternatives, variantPolicy } from "../../../analysis/audit/alternatives.ts";
import { audit } from "../../../analysis/audit/audit.ts";
import { claimMoves } from "../../../analysis/audit/claim_moves.ts";
import { classify } from "../../../analysis/goodput/classify.ts";
import { coldStart } from "../../../analysis/recovery/cold_start.ts";
import { compare } from "../../../analysis/compare/compare.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { LevelCoster } from "../../../analysis/knee/level_cost.ts";
import { prepareRun } from "../../../analysis/knee/levels.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { parseSloPolicy, policyForRun, policyForRuns, resolveWindow } from "../../../analysis/goodput/policy.ts";
import { loadPriceSheet } from "../../../analysis/cost/price_sheet.ts";
import { latencyCdfInput } from "../../../analysis/plots/latency_cdf.ts";
import { sloSweepInput } from "../../../analysis/plots/slo_sweep.ts";
import { timelineInput } from "../../../analysis/plots/timeline_input.ts";
import { recovery } from "../../../analysis/recovery/recovery.ts";
import { buildReport } from "../../../analysis/report/report.ts";
import { runReportExtras } from "../../../analysis/report/report_extras.ts";
import { compareRouteCosts, kneeCurve } from "../../../analysis/compare/route_costs.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { mulberry32 } from "../../../lib/prng.ts";
import { Gate, type SloPolicy } from "../../../schema/slo.ts";
import { writeRun } from "../_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY, STAGES } from "../hand_fixture.ts";

const QUIET = { onWarning: () => {} };
const PRICES = new URL("../../../data/prices/hosted-sim.json", import.meta.url).pathname;
const V1_0 = new URL("../../testdata/contract-1.0", import.meta.url).pathname;

/** The hand fixture as a 1.1 run whose workload declares its three classes. */
async function fixtureRun(): Promise<LoadedRun> {
  const manifest = fixtureManifest();
  manifest.workload.classes = ["json", "other", "qa"];
  return await loadRun(writeRun(join(Deno.makeTempDirSync(), "run"), manifest, fixtureTables()), QUIET);
}

Deno.test("a policy passed in code is validated like a file: every bad field is named", async (t) => {
  const run = await fixtureRun();
  const bad = (input: unknown, ...fields: RegExp[]) =>
    assert.throws(
      () => goodput(run, input as SloPolicy),
      (e) => e instanceof InputError && fields.every((f) => f.test(e.message)),
    );
  await t.step("a missing default, and a policy that is not an object", () => {
    bad({ classes: {} }, /goodput\(\) policy: default: /);
    bad(null, /goodput\(\) policy: \(root\): /);
  });
  await t.step("misspelt keys are refused (the schema is strict)", () => {
    bad({ default: { e2e: 100 } }, /default: Unrecognized key: "e2e"/);
    bad({ default: {}, denominater: "offered" }, /\(root\): Unrecognized key: "denominater"/);
    bad({ default: {}, classes: { qa: { gate: ["output_valid"] } } }, /classes\.qa: Unrecognized key: "gate"/);
  });
  await t.step("bad values: unknown gate, non-positive limit, unknown denominator, window keys", () => {
    bad({ default: { gates: ["safety"] } }, /default\.gates\.0: /);
    bad({ default: { ttft_ms: 0 } }, /default\.ttft_ms: /);
    bad({ default: {}, denominator: "all" }, /denominator: /);
    bad({ default: {}, window: { exclude: ["warmup"] } }, /window: /);
  });
  await t.step("a missing gates list takes the default gates instead of failing inside the classification", () => {
    const g = goodput(run, { ...POLICY, classes: { qa: { e2e_ms: 1000 } } } as unknown as SloPolicy);
    assert.deepEqual(g.disclosure.slo.classes.qa!.gates, ["output_valid", "quality_ok", "safety_ok", "auth_ok"]);
  });
});

Deno.test("an SLO class that is not in the run's workload is refused, naming where the classes came from", async (t) => {
  await t.step("1.1: run.json workload.classes", async () => {
    const run = await fixtureRun();
    assert.throws(
      () => goodput(run, { ...POLICY, classes: { ...POLICY.classes, "extract-json": { gates: [] } } }),
      (e) =>
        e instanceof InputError &&
        /goodput\(\) policy: classes: extract-json not in the workload of run\n/.test(e.message) &&
        /run fixture-run \(.*\) has the classes \(run\.json workload\.classes\): json, other, qa/.test(e.message),
    );
  });
  await t.step("1.0: the classes present in the requests log, and the scanned path the same", async () => {
    for (const open of [loadRun, scanRun]) {
      const run = await open(V1_0, QUIET);
      assert.throws(
        () => goodput(run, { ...POLICY, classes: { short_qa: { gates: [] } } }),
        (e) =>
          e instanceof InputError &&
          /classes: short_qa not in the workload of run\n/.test(e.message) &&
          /the classes present in its requests log: run\.json records no workload\.classes \(contract 1\.0\)\): safety/
            .test(e.message),
      );
    }
  });
});

/** A valid random policy over the fixture's classes. */
function randomPolicy(r: () => number): SloPolicy {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const slo = () => {
    const s: Record<string, unknown> = { gates: Gate.options.filter(() => r() < 0.5) };
    for (const k of ["e2e_ms", "ttft_ms", "tpot_ms"]) if (r() < 0.6) s[k] = 1 + Math.round(r() * 5000);
    return s;
  };
  const classes: Record<string, unknown> = {};
  for (const c of ["qa", "json", "other"]) if (r() < 0.5) classes[c] = slo();
  return parseSloPolicy({
    denominator: pick(["offered", "sent", "completed"]),
    window: pick([{ exclude_stage_kinds: ["warmup", "drain"] }, { exclude_stage_kinds: [] }, {
      start_ms: 10_000,
      end_ms: 30_000,
    }]),
    classes,
    default: slo(),
  }, "random policy");
}

type Mutable = Record<string, unknown> & { classes: Record<string, Record<string, unknown>>; default: object };

/** One random mutation that makes a policy invalid, and the field the error must name. */
const MUTATIONS: ((p: Mutable, r: () => number) => RegExp)[] = [
  (p) => (delete (p as Partial<Mutable>).default, /default: /),
  (p) => ((p.default as Record<string, unknown>).gates = "output_valid", /default\.gates: /),
  (p) => ((p.default as Record<string, unknown>).gates = ["output_valid", "safe_ok"], /default\.gates\.1: /),
  (p) => ((p.default as Record<string, unknown>).e2e = 100, /default: Unrecognized key: "e2e"/),
  (p) => ((p.default as Record<string, unknown>).tpot_ms = -1, /default\.tpot_ms: /),
  (p) => ((p.default as Record<string, unknown>).ttft_ms = "800", /default\.ttft_ms: /),
  (p) => (p.denominator = "requests", /denominator: /),
  (p) => (p.window = { exclude_stage_kinds: ["cooldown"] }, /window\.exclude_stage_kinds\.0: |window: /),
  (p) => (p.classess = {}, /Unrecognized key: "classess"/),
  (p) => (p.classes.qa = null as never, /classes\.qa: /),
  (p, r) => {
    const c = ["qa", "json", "other"][Math.floor(r() * 3)]!;
    p.classes[c] = { ...(p.classes[c] ?? {}), e2e_ms: 0 };
    return new RegExp(`classes\\.${c}\\.e2e_ms: `);
  },
  (p) => (p.classes["short-qa"] = { gates: [] }, /classes: short-qa not in the workload/),
];
/** The mutation only a run can refuse (a class its workload does not have): `variantPolicy` has no run. */
const NEEDS_RUN = MUTATIONS.length - 1;

Deno.test("compared runs: a class need be in one run's workload only (a single-class run beside the mix)", async () => {
  const mixed = await fixtureRun();
  const single = await loadRun(V1_0, QUIET); // a 1.0 log of the safety class only
  const policy = { ...POLICY, classes: { ...POLICY.classes, safety: { gates: [] } } };
  assert.throws(() => goodput(single, policy), /classes: qa, json not in the workload of run\n/);
  assert.deepEqual(policyForRuns(policy, [mixed, single], "compare"), policy);
  assert.throws(
    () =>
      policyForRuns({ ...policy, classes: { ...policy.classes, sefety: { gates: [] } } }, [mixed, single], "compare"),
    (e) =>
      e instanceof InputError && /compare: classes: sefety not in the workload of any run/.test(e.message) &&
      /run fixture-run .* has the classes/.test(e.message) &&
      /has the classes \(the classes present in/.test(e.message),
  );
});

Deno.test("property: no policy passed in code bypasses validation (seeded mutations × every entry)", async () => {
  const run = await fixtureRun();
  const scanned = await scanRun(run.dir, QUIET);
  const prices = await loadPriceSheet(PRICES);
  const window = resolveWindow(STAGES, POLICY.window);
  const claim = { metric: "acceptance_rate" as const, value: 0.2, source: "test", class: null, stage: null };
  const rules = { denominator: "offered", slo: "strict", factor: 1, gates: "on", window: "policy" } as const;
  const pricing = { prices, overheads: null };
  // Every exported analysis function or class that takes a policy. Arguments that do not concern the policy are
  // left empty (`never`): validation comes first, so they are never reached with a bad policy.
  const entries: [string, (p: SloPolicy) => unknown][] = [
    ["goodput()", (p) => goodput(run, p)],
    ["goodput()", (p) => goodput(scanned, p)],
    ["classify()", (p) => classify(run, p, window)],
    ["alternatives()", (p) => alternatives(run, p)],
    ["variantPolicy()", (p) => variantPolicy(p, rules, STAGES)],
    ["audit()", (p) => audit(run, claim, { policy: p })],
    ["audit()", (p) => audit(run, { ...claim, slo: p }, { policy: POLICY })],
    ["audit()", (p) => claimMoves(run, claim, { policy: p })],
    ["knee()", (p) => knee([run], p)],
    ["prepareRun()", (p) => prepareRun(run, p)],
    ["LevelCoster", (p) => new LevelCoster(run, p, pricing)],
    ["coldStart()", (p) => coldStart(run, p)],
    ["recovery()", (p) => recovery(run, p)],
    ["ledger()", (p) => ledger(run, p, prices)],
    ["compare()", (p) => compare([run, run], p)],
    ["compareRouteCosts()", (p) => compareRouteCosts([run, run], p, { prices })],
    ["kneeCurve()", (p) => kneeCurve(run, p, null as never, null as never)],
    ["buildReport()", (p) => buildReport(run, p)],
    ["runReportExtras()", (p) => runReportExtras(run, p)],
    ["latencyCdfInput()", (p) => latencyCdfInput(run, p)],
    ["sloSweepInput()", (p) => sloSweepInput(run, p)],
    ["timelineInput()", (p) => timelineInput(run, p)],
  ];
  const r = mulberry32(20261201);
  const seen = new Set<number>();
  for (let i = 0; i < 60; i++) {
    const valid = randomPolicy(r);
    // The valid policy passes validation unchanged (validation is idempotent).
    assert.deepEqual(policyForRun(valid, run, "check"), valid);
    const k = Math.floor(r() * MUTATIONS.length);
    seen.add(k);
    const bad = structuredClone(valid) as unknown as Mutable;
    const field = MUTATIONS[k]!(bad, r);
    for (const [name, call] of entries) {
      if (k === NEEDS_RUN && name === "variantPolicy()") continue;
      assert.throws(
        () => call(bad as unknown as SloPolicy),
        (e) => e instanceof InputError && field.test(e.message) && e.message.includes(name.replace(/\(\)$/, "")),
        `${name} with mutation ${k} of ${JSON.stringify(valid)}`,
      );
    }
  }
  assert.equal(seen.size, MUTATIONS.length, "every mutation was drawn");
});
