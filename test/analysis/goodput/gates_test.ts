/**
 * Gates: not applicable ≠ not evaluated. A required gate the request's case
 * does not define passes as n/a (counted per gate in the disclosure); a gate
 * that applies but is null (not evaluated) or false fails; a 1.0 log, which
 * does not record applicability, keeps the 1.0 rule (null fails).
 */
import { NO_GATE_NAME_INSIDE_ANOTHER } from "../../../analysis/goodput/_gates.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { classify } from "../../../analysis/goodput/classify.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { loadSloPolicy, resolveWindow } from "../../../analysis/goodput/policy.ts";
import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { att, makeManifest, req, type RunTables, writeRun } from "../_fixture.ts";

const STAGES: Stage[] = [{ name: "s", kind: "steady", start_ms: 0, end_ms: 10_000, offered_rps: 1 }];
const QUIET = { onWarning: () => {} };
const CLI = new URL("../../../analysis/cli/analyze.ts", import.meta.url).pathname;
const V1_0 = new URL("../../testdata/contract-1.0", import.meta.url).pathname;

/** The minimal SLO file of the issue: an e2e limit, and the schema's default gates. */
function minimalSloFile(): string {
  const file = join(Deno.makeTempDirSync(), "slo.json");
  Deno.writeTextFileSync(file, JSON.stringify({ default: { e2e_ms: 10000 } }));
  return file;
}

/** An answered request (e2e 500 ms) of `cls` whose case defines the gates in `applicable`, with gate values `gates`. */
function answered(
  id: string,
  cls: string,
  t: number,
  applicable: string,
  gates: Partial<RequestRow> = {},
): { r: RequestRow; a: AttemptRow } {
  const r = req({
    request_id: id,
    class: cls,
    stage: "s",
    scheduled_ms: t,
    first_token_ms: t + 100,
    completed_ms: t + 500,
    applicable_gates: applicable,
    // As the runner writes them: a gate its case does not define is null.
    safety_ok: applicable.includes("safety_ok") ? true : null,
    auth_ok: applicable.includes("auth_ok") ? true : null,
    ...gates,
  });
  const a = att({ request_id: id, sent_ms: t, first_token_ms: t + 100, last_token_ms: t + 490, output_tokens: 40 });
  return { r, a };
}

const PLAIN = "output_valid,quality_ok";
const SAFETY = "output_valid,quality_ok,safety_ok";
const AGENT = "output_valid,quality_ok,auth_ok";

/** Each comment: the first failing reason under the minimal policy (every default gate required). */
function tables(): RunTables {
  const parts = [
    answered("p1", "plain", 1000, PLAIN), // accepted: safety_ok and auth_ok n/a
    answered("p2", "plain", 1500, PLAIN, { quality_ok: false }), // gate_quality_ok
    answered("s1", "safety", 2000, SAFETY, { safety_ok: null }), // gate_safety_ok: applies, not evaluated (null)
    answered("s2", "safety", 2500, SAFETY), // accepted: auth_ok n/a
    answered("t1", "agent", 3000, AGENT, { auth_ok: false }), // gate_auth_ok
    answered("t2", "agent", 3500, AGENT), // accepted: safety_ok n/a
    answered("x1", "plain", 4000, AGENT, { auth_ok: false }), // gate_auth_ok: a stray tool call was judged anyway
  ];
  const timeout = req({
    request_id: "f1",
    class: "plain",
    stage: "s",
    scheduled_ms: 4500,
    outcome: "timeout",
    applicable_gates: PLAIN,
    output_valid: null,
    quality_ok: null,
    safety_ok: null,
    auth_ok: null,
  }); // timeout: no gate reached, nothing counted as n/a
  return {
    requests: [...parts.map((p) => p.r), timeout],
    attempts: [...parts.map((p) => p.a), att({ request_id: "f1", sent_ms: 4500, error_kind: "attempt_timeout" })],
  };
}

async function write(minor: number): Promise<{ dir: string; run: LoadedRun }> {
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(STAGES), tables(), minor);
  return { dir, run: await loadRun(dir, QUIET) };
}

Deno.test("a gate that does not apply passes as n/a; one that applies fails when false or null", async (t) => {
  const { run } = await write(1);
  const policy = await loadSloPolicy(minimalSloFile());
  await t.step("the minimal SLO file requires the default gates", () => {
    assert.deepEqual(policy.default.gates, ["output_valid", "quality_ok", "safety_ok", "auth_ok"]);
  });
  await t.step("classification: n/a gates pass, applicable null or false gates fail", () => {
    const rows = classify(run, policy, resolveWindow(STAGES, policy.window)).toRecords();
    assert.deepEqual(
      rows.map((r) => [r.request_id, r.reason, r.gates_na]),
      [
        ["p1", null, "safety_ok,auth_ok"],
        ["p2", "gate_quality_ok", "safety_ok,auth_ok"],
        ["s1", "gate_safety_ok", "auth_ok"],
        ["s2", null, "auth_ok"],
        ["t1", "gate_auth_ok", "safety_ok"],
        ["t2", null, "safety_ok"],
        ["x1", "gate_auth_ok", "safety_ok"],
        ["f1", "timeout", null],
      ],
    );
  });
  await t.step("goodput: the minimal SLO accepts answered requests of classes without a safety case or tools", () => {
    const g = goodput(run, policy);
    // Accepted p1 s2 t2 = 3 of 8 (the 1.0 rule accepts none: p1 and t2 fail safety_ok, s2 auth_ok; see below).
    assert.deepEqual([g.overall.accepted, g.overall.offered], [3, 8]);
    assert.deepEqual(
      [g.overall.failures.gate_quality_ok, g.overall.failures.gate_safety_ok, g.overall.failures.gate_auth_ok],
      [1, 1, 2],
    );
    assert.equal(g.by_class.find((r) => r.class === "plain")!.accepted, 1);
    // n/a per gate over the 7 completed: safety_ok for p1 p2 t1 t2 x1 = 5, auth_ok for p1 p2 s1 s2 = 4.
    const na = g.disclosure.gates_not_applicable;
    assert.deepEqual(na.overall, { output_valid: 0, schema_ok: 0, quality_ok: 0, safety_ok: 5, auth_ok: 4 });
    assert.deepEqual([na.by_class.plain!.safety_ok, na.by_class.plain!.auth_ok], [3, 2]);
    assert.deepEqual([na.by_class.safety!.auth_ok, na.by_class.agent!.safety_ok], [2, 2]);
    assert.equal(
      g.disclosure.slo_rules.plain,
      "plain: e2e ≤ 10000 ms; gates output_valid, quality_ok, safety_ok (n/a for 3), auth_ok (n/a for 2)",
    );
    assert.match(g.disclosure.gate_rule, /passes as n\/a/);
  });
});

Deno.test("analyze with the minimal SLO file prints the n/a counts and accepts the answered requests", async () => {
  const { dir } = await write(1);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-ffi", "--allow-env", "--allow-sys", CLI, dir, "--slo", minimalSloFile()],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(
    text,
    /gates passed as n\/a \(completed requests whose case does not define the gate\): safety_ok 5, auth_ok 4/,
  );
  // offered 8, sent 8, completed 7, accepted 3.
  assert.match(text, /^all\s+8\s+8\s+7\s+3\s/m);
});

Deno.test("a 1.0 log records no applicability: every required gate applies and null fails (the 1.0 rule)", async (t) => {
  const policy = await loadSloPolicy(minimalSloFile());
  await t.step("the hand-built log written as 1.0 accepts none", async () => {
    const { run } = await write(0);
    const g = goodput(run, policy);
    // safety_ok comes before auth_ok: p1 s1 t1 t2 x1 (safety_ok null) fail safety_ok = 5, s2 (auth_ok null) auth_ok
    // = 1, p2 quality_ok = 1, f1 timeout = 1; 8 offered, none accepted.
    assert.deepEqual([g.overall.accepted, g.overall.failures.gate_safety_ok, g.overall.failures.gate_auth_ok], [
      0,
      5,
      1,
    ]);
    assert.deepEqual(g.disclosure.gates_not_applicable.overall.safety_ok, 0);
    assert.ok(g.disclosure.inclusion_rules.some((r) => /every gate a class requires applies/.test(r)));
  });
  await t.step("the real 1.0 run: its safety answers fail the default auth_ok; recorded as 1.1 they pass", async () => {
    const run = await loadRun(V1_0, QUIET);
    const g = goodput(run, policy);
    // 35 answered safety requests, auth_ok null (no tools): 1 fails quality_ok first, the other 34 auth_ok.
    assert.deepEqual([g.overall.completed, g.overall.accepted, g.overall.failures.gate_auth_ok], [35, 0, 34]);
    // The same rows as a 1.1 log whose cases define output_valid, quality_ok and safety_ok: auth_ok is n/a.
    const requests = run.requests.toRecords().map((r) => ({ ...r, applicable_gates: SAFETY }) as RequestRow);
    const attempts = run.attempts.toRecords() as unknown as AttemptRow[];
    const dir = writeRun(join(Deno.makeTempDirSync(), "run"), run.manifest as RunManifest, { requests, attempts }, 1);
    const g11 = goodput(await loadRun(dir, QUIET), policy);
    assert.deepEqual([g11.overall.accepted, g11.disclosure.gates_not_applicable.overall.auth_ok], [34, 35]);
  });
});

Deno.test("applicable_gates is read by a literal substring test, exact because no gate name lies inside another", () => {
  assert.equal(NO_GATE_NAME_INSIDE_ANOTHER, true);
});
