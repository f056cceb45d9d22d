import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { goodput } from "../../analysis/goodput/goodput.ts";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import { applicableGates, evaluateChecks, notEvaluated } from "../../runner/checks/mod.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { loadSimProfile } from "../../schema/sim_profile.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { startSim } from "../../sim/mod.ts";
import { writeEngineWorkload } from "../../scripts/make_engine_workload.ts";
import { writeJson } from "../../testing/tiny_workload.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DIR = join(ROOT, "data/workloads/engine-validation");
const SLO = join(ROOT, "data/slo/engine-validation.json");
const loaded = await loadWorkload(DIR);
const cases = loaded.workload.cases;

Deno.test("the committed engine-validation files are what its recipe derives, byte for byte", async () => {
  const out = Deno.makeTempDirSync();
  try {
    await writeEngineWorkload({ out });
    for (const f of ["workload.json", "class_defaults.json"]) {
      assert.equal(Deno.readTextFileSync(join(out, f)), Deno.readTextFileSync(join(DIR, f)), f);
    }
  } finally {
    Deno.removeSync(out, { recursive: true });
  }
});

Deno.test("engine-validation: 48 short chats and 6 long documents, tagged, sized as their classes say", () => {
  const of = (tag: string) => cases.filter((c) => c.tags?.includes(tag));
  assert.equal(cases.length, 54);
  assert.deepEqual(of("short-chat").map((c) => c.class), Array(48).fill("chat"));
  assert.deepEqual(of("long-context").map((c) => c.class), Array(6).fill("long_context"));
  for (const c of of("short-chat")) {
    assert.equal(c.input_size, "typical");
    assert.ok(c.input_tokens >= 120 && c.input_tokens <= 380, `${c.case_id}: ${c.input_tokens}`);
  }
  for (const c of of("long-context")) {
    assert.equal(c.input_size, "long");
    assert.ok(c.input_tokens >= 2_800 && c.input_tokens <= 4_200, `${c.case_id}: ${c.input_tokens}`);
  }
  assert.equal(new Set(cases.map((c) => c.prompt_sha256)).size, 54, "every prompt distinct");
});

Deno.test("engine-validation: only output_valid applies; quality, schema, safety and auth are not applicable", () => {
  for (const c of cases) {
    assert.equal(c.quality_check.kind, "not_applicable");
    assert.equal(applicableGates(c, notEvaluated()), "output_valid", c.case_id);
    // Any answer: quality_ok is not evaluated (null), never failed.
    const gates = evaluateChecks({
      case: c,
      text: "noise noise",
      finish_reason: "stop",
      tool_calls: [],
      max_tokens: c.max_output_tokens,
      output_tokens: 2,
    });
    assert.deepEqual(Object.values(gates).map((g) => g.value), [true, null, null, null, null], c.case_id);
  }
});

Deno.test("the engine-validation SLO requires output_valid and latency only, and says so", async () => {
  const policy = await loadSloPolicy(SLO);
  assert.match(policy.statement!, /^latency and validity only/);
  assert.deepEqual(Object.keys(policy.classes).sort(), Object.keys(loaded.classDefaults.classes).sort());
  for (const c of [...Object.values(policy.classes), policy.default]) assert.deepEqual(c.gates, ["output_valid"]);
});

Deno.test("a run of engine-validation is judged by latency and validity, and the disclosure says so", async () => {
  const dir = Deno.makeTempDirSync();
  const profile = await loadSimProfile(join(ROOT, "data/sim/fast.json"));
  const sim = await startSim({ port: 0, profile, workload: loaded.workload, seed: 3, quiet: true });
  try {
    const plan = writeJson(dir, "plan.json", {
      name: "ev",
      seed: 3,
      arrivals: { process: "constant", rate_rps: 20, duration_s: 2 },
      mix: { tags: ["short-chat"] },
    });
    const { dir: runDir } = await runLoadTest({
      workload: DIR,
      plan,
      target: sim.url,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    assert.equal(requests.length, 40, "20 req/s × 2 s");
    assert.deepEqual(new Set(requests.map((r) => r.class)), new Set(["chat"]), "the plan selected short chats");
    for (const r of requests.filter((r) => r.outcome === "ok")) {
      assert.equal(r.applicable_gates, "output_valid");
      assert.equal(r.quality_ok, null);
    }
    const result = goodput(await loadRun(runDir, { onWarning: () => {} }), await loadSloPolicy(SLO));
    assert.match(result.disclosure.inclusion_rules[0]!, /^the SLO policy: latency and validity only/);
    assert.match(result.disclosure.slo_rules.chat!, /gates output_valid$/);
    assert.equal(result.overall.offered, 40);
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});
