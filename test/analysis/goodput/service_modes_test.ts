import assert from "node:assert/strict";
import { join } from "node:path";
import { classify, FAILURE_ORDER, type FailureReason } from "../../../analysis/goodput/classify.ts";
import { formatGoodput } from "../../../analysis/goodput/format_goodput.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { resolveWindow } from "../../../analysis/goodput/policy.ts";
import { modeSlo } from "../../../analysis/goodput/_mode_slo.ts";
import type { Stage } from "../../../schema/plan.ts";
import { SloPolicy } from "../../../schema/slo.ts";
import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";

/**
 * One steady stage of 10 s, all of it measured.
 *
 * Classes: qa (e2e ≤ 1000; gates output_valid, quality_ok, safety_ok) may be served in `degraded-short` (its own
 * mode: e2e ≤ 1500, gates output_valid, safety_ok — quality is not required). tool (e2e ≤ 2000; gates output_valid,
 * quality_ok, auth_ok). Any other class takes the default (e2e ≤ 3000; every gate but schema_ok). Every class may be
 * served in the policy-wide mode `async` (e2e ≤ 5000, the same four gates).
 */
const POLICY = SloPolicy.parse({
  window: { exclude_stage_kinds: [] },
  classes: {
    qa: {
      e2e_ms: 1000,
      gates: ["output_valid", "quality_ok", "safety_ok"],
      modes: {
        "degraded-short": { output: "answers cut to 48 tokens", gates: ["output_valid", "safety_ok"], e2e_ms: 1500 },
      },
    },
    tool: { e2e_ms: 2000, gates: ["output_valid", "quality_ok", "auth_ok"] },
  },
  default: { e2e_ms: 3000, gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"] },
  modes: {
    async: {
      output: "the same answer, later",
      gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"],
      e2e_ms: 5000,
    },
  },
});

const STAGES: Stage[] = [{ name: "s", kind: "steady", start_ms: 0, end_ms: 10_000, offered_rps: 1.5 }];

/** An ok request scheduled at `t` (ms), completed `e2e` later, in `mode`; `over` sets gates. */
function ok(id: string, cls: string, t: number, e2e: number, mode: string | null, over: Partial<RequestRow> = {}) {
  return {
    r: req({
      request_id: id,
      class: cls,
      stage: "s",
      scheduled_ms: t,
      first_token_ms: t + 10,
      completed_ms: t + e2e,
      service_mode: mode,
      ...over,
    }),
    a: att({
      request_id: id,
      sent_ms: t,
      first_token_ms: t + 10,
      last_token_ms: t + Math.max(e2e, 10), // never before the first token (r01, answered nothing: e2e 0)
      completed_ms: t + e2e,
      output_tokens: 1,
    }),
  };
}

/** The rows, each with its expected first failing reason (null: accepted). */
const CASES: [{ r: RequestRow; a: AttemptRow }, FailureReason | null][] = [
  [ok("q01", "qa", 0, 800, null), null],
  [ok("q02", "qa", 500, 1200, null), "late_e2e"], // class limit 1000
  [ok("q03", "qa", 1000, 1200, "degraded-short", { quality_ok: false }), null], // mode limit 1500; quality not required
  [ok("q04", "qa", 1500, 1600, "degraded-short"), "late_e2e"], // 1600 > 1500
  [ok("q05", "qa", 2000, 900, "degraded-short", { safety_ok: false }), "gate_safety_ok"],
  [ok("q06", "qa", 2500, 4000, "async"), null], // policy-wide mode: 4000 ≤ 5000
  [ok("q07", "qa", 3000, 500, "turbo"), "undeclared_mode"], // no policy declares turbo
  [ok("q08", "qa", 3500, 500, "!malformed"), "undeclared_mode"],
  [ok("t01", "tool", 4000, 500, "degraded-short"), "undeclared_mode"], // declared for qa only
  [ok("t02", "tool", 4500, 3000, "async"), null],
  [ok("t03", "tool", 5000, 1500, null), null],
  [ok("t04", "tool", 5500, 1000, "async", { auth_ok: false }), "gate_auth_ok"],
  [
    ok("r01", "qa", 6000, 0, "degraded-short", {
      outcome: "rejected",
      http_status: 429,
      completed_ms: null,
      first_token_ms: null,
      output_valid: null,
      quality_ok: null,
      safety_ok: null,
      auth_ok: null,
    }),
    "rejected", // a failure is a failure whatever mode it announced
  ],
  [ok("x01", "misc", 6500, 4500, "async"), null], // default class in the policy-wide mode: 4500 ≤ 5000
  [ok("x02", "misc", 7000, 500, "degraded-short"), "undeclared_mode"], // the default class declares no such mode
];

function failures(nonzero: Partial<Record<FailureReason, number>>): Record<FailureReason, number> {
  return Object.fromEntries(FAILURE_ORDER.map((f) => [f, nonzero[f] ?? 0])) as Record<FailureReason, number>;
}

function fixtureDir(): string {
  return writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(STAGES), {
    requests: CASES.map(([c]) => c.r),
    attempts: CASES.map(([c]) => c.a),
  });
}

async function fixtureRun() {
  return await loadRun(fixtureDir(), { onWarning: () => {} });
}

Deno.test("modeSlo() resolves a class's own mode first, then the policy's, with the class's unset limits", () => {
  assert.deepEqual(modeSlo(POLICY, "qa", "degraded-short"), { e2e_ms: 1500, gates: ["output_valid", "safety_ok"] });
  assert.deepEqual(modeSlo(POLICY, "tool", "async"), {
    e2e_ms: 5000,
    gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"],
  });
  assert.equal(modeSlo(POLICY, "tool", "degraded-short"), null);
  assert.equal(modeSlo(POLICY, "misc", "degraded-short"), null);
  assert.equal(modeSlo(POLICY, "qa", "!malformed"), null);
});

Deno.test("classify() holds each request to the SLO of the mode it was served in", async () => {
  const run = await fixtureRun();
  const rows = classify(run, POLICY, resolveWindow(run.manifest.stages, POLICY.window)).toRecords();
  assert.deepEqual(
    rows.map((r) => [r.request_id, r.reason]),
    CASES.map(([c, reason]) => [c.r.request_id, reason]),
  );
});

Deno.test("goodput() reports accepted goodput per service mode, adding up to the overall row", async (t) => {
  const run = await fixtureRun();
  const r = goodput(run, POLICY);
  const row = (mode: string | null) => r.by_mode.find((m) => m.mode === mode)!;

  await t.step("rows in order: none announced first, then by name", () => {
    assert.deepEqual(r.by_mode.map((m) => m.mode), [null, "!malformed", "async", "degraded-short", "turbo"]);
  });
  await t.step("(none): q01 accepted, q02 late, t03 accepted", () => {
    // 2 accepted / 10 s = 0.2 /s; acceptance 2/3.
    assert.deepEqual(row(null), {
      mode: null,
      offered: 3,
      sent: 3,
      completed: 3,
      accepted: 2,
      measurement_seconds: 10,
      accepted_goodput: 0.2,
      acceptance_rate: 2 / 3,
      slo_miss_rate: 1 / 3,
      failures: failures({ late_e2e: 1 }),
    });
  });
  await t.step("async: q06 t02 x01 accepted, t04 fails auth_ok", () => {
    // 3 / 10 s = 0.3 /s; acceptance 3/4.
    const a = row("async");
    assert.deepEqual([a.offered, a.accepted, a.accepted_goodput, a.acceptance_rate], [4, 3, 0.3, 0.75]);
    assert.deepEqual(a.failures, failures({ gate_auth_ok: 1 }));
  });
  await t.step("degraded-short: q03 accepted; q04 late, q05 unsafe, t01 x02 undeclared, r01 rejected", () => {
    // offered 6, sent 6 (a 429 was sent), completed 5 (all but r01), accepted 1 → 0.1 /s; miss (6 − 1)/6.
    assert.deepEqual(row("degraded-short"), {
      mode: "degraded-short",
      offered: 6,
      sent: 6,
      completed: 5,
      accepted: 1,
      measurement_seconds: 10,
      accepted_goodput: 0.1,
      acceptance_rate: 1 / 6,
      slo_miss_rate: 5 / 6,
      failures: failures({ rejected: 1, undeclared_mode: 2, late_e2e: 1, gate_safety_ok: 1 }),
    });
  });
  await t.step("undeclared and malformed modes accept nothing", () => {
    for (const m of ["turbo", "!malformed"]) {
      assert.deepEqual([row(m).offered, row(m).accepted, row(m).failures.undeclared_mode], [1, 0, 1], m);
    }
  });
  await t.step(
    "the modes add up to the overall row: 3 + 1 + 4 + 6 + 1 = 15 offered, 2 + 0 + 3 + 1 + 0 = 6 accepted",
    () => {
      assert.equal(r.overall.offered, 15);
      assert.equal(r.overall.accepted, 6);
      assert.equal(r.overall.accepted_goodput, 0.6);
      assert.equal(r.by_mode.reduce((s, m) => s + m.accepted, 0), r.overall.accepted);
      assert.deepEqual(r.disclosure.n.by_mode, {
        "(none)": 3,
        "!malformed": 1,
        async: 4,
        "degraded-short": 6,
        turbo: 1,
      });
    },
  );
  await t.step("the disclosure states the rules and warns about the 4 undeclared requests", () => {
    assert.ok(r.disclosure.inclusion_rules.some((l) => l.includes("undeclared_mode")));
    assert.ok(r.disclosure.inclusion_rules.some((l) => l.startsWith("by_mode groups requests")));
    assert.ok(r.disclosure.warnings.includes(
      "4 requests were served in service modes the policy does not declare (!malformed: 1, degraded-short: 2, " +
        "turbo: 1); none of them is accepted",
    ));
    assert.deepEqual(Object.keys(r.disclosure.slo.modes), ["async"]);
    const text = formatGoodput(r);
    assert.match(
      text,
      /^ {4}in mode degraded-short \(answers cut to 48 tokens\): e2e ≤ 1500 ms, TTFT ≤ - ms, TPOT ≤ - ms; gates output_valid, safety_ok$/m,
    );
    assert.match(text, /^ {4}in mode async \(the same answer, later\): e2e ≤ 5000 ms, TTFT ≤ class's ms/m);
    assert.match(text, /^by service mode/m);
    assert.match(
      text,
      /^degraded-short\s+6\s+6\s+5\s+1\s+10\.0\s+0\.1000\s+0\.1667\s+0\.8333\s+rejected=1 undeclared_mode=2 late_e2e=1 gate_safety_ok=1$/m,
    );
  });
});

Deno.test("a scanned run gives the same per-mode goodput as the loaded one", async () => {
  const dir = fixtureDir();
  const loaded = goodput(await loadRun(dir, { onWarning: () => {} }), POLICY);
  const scanned = goodput(await scanRun(dir, { onWarning: () => {} }), POLICY);
  assert.deepEqual(scanned.by_mode, loaded.by_mode);
  assert.deepEqual(scanned.by_class_stage, loaded.by_class_stage);
});

Deno.test("a 1.0 log (no service_mode column) reads as none announced: the class SLO applies", async () => {
  const run = await loadRun("test/testdata/contract-1.0", { onWarning: () => {} });
  const policy = SloPolicy.parse({
    default: { e2e_ms: 1e9, gates: [] },
    modes: { async: { output: "later", gates: [] } },
  });
  const r = goodput(run, policy);
  assert.deepEqual(r.by_mode.map((m) => m.mode), [null]);
  assert.equal(r.by_mode[0]!.offered, r.overall.offered);
  assert.equal(r.overall.failures.undeclared_mode, 0);
});
