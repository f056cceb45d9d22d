import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { loadSloPolicy } from "../../../analysis/goodput/policy.ts";
import { SimProfile } from "../../../schema/sim_profile.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { runDesignV1OnSim } from "../../support/sim_run.ts";
import { writeJson } from "../../../testing/tiny_workload.ts";

Deno.test("a run against a simulator that degrades under load is judged per mode", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    // 2 slots of 4 ms steps: design-v1 answers of ~10–500 tokens hold a slot up to 2 s, so 24 req/s for 1 s queues
    // within the first few arrivals; more than 1 waiting → degraded-short, answers cut to 48 tokens.
    const profile = SimProfile.parse({
      name: "degrading",
      engine: {
        prefill_ms_per_token: 0,
        prefill_overhead_ms: 0,
        decode_step_ms_base: 4,
        decode_step_ms_per_seq: 0,
        max_running_seqs: 4,
      },
      queue: { max_len: 1000 },
      degraded_mode: { name: "degraded-short", threshold: 1, max_output_tokens: 48 },
    });
    const plan = writeJson(dir, "plan.json", {
      name: "degrade",
      seed: 5,
      arrivals: { process: "constant", rate_rps: 24, duration_s: 1 },
    });
    const { dir: runDir } = await runDesignV1OnSim(dir, { plan, simSeed: 2, formats: ["csv"], profile });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");

    const degraded = requests.filter((r) => r.service_mode === "degraded-short");
    assert.ok(degraded.length >= 8, `${degraded.length} degraded`);
    assert.ok(
      requests.some((r) => r.service_mode === null && r.outcome === "ok"),
      "the first arrivals are served in full",
    );
    assert.deepEqual([...new Set(requests.map((r) => r.service_mode))].sort(), ["degraded-short", null].sort());
    // A degraded final answer is at most 48 tokens (tool calls are never cut, so only one-round requests are checked).
    for (const r of degraded.filter((r) => r.outcome === "ok" && r.rounds === 1)) {
      assert.ok(r.output_tokens <= 48, `${r.request_id}: ${r.output_tokens} tokens`);
    }

    const run = await loadRun(runDir, { onWarning: () => {} });
    const withModes = goodput(run, await loadSloPolicy("data/slo/design-v1-modes.json"));
    const row = (res: typeof withModes, mode: string | null) => res.by_mode.find((m) => m.mode === mode)!;
    assert.deepEqual(withModes.by_mode.map((m) => m.mode), [null, "degraded-short"]);
    assert.equal(withModes.overall.failures.undeclared_mode, 0);
    assert.equal(row(withModes, "degraded-short").offered + row(withModes, null).offered, withModes.overall.offered);
    assert.equal(row(withModes, "degraded-short").offered, degraded.length);

    // The same run under a policy without modes: every completed degraded answer is undeclared, none accepted.
    const strict = goodput(run, await loadSloPolicy("data/slo/design-v1.json"));
    const d = row(strict, "degraded-short");
    assert.equal(d.accepted, 0);
    assert.equal(d.failures.undeclared_mode, d.completed);
    assert.ok(strict.disclosure.warnings.some((w) => w.includes("the policy does not declare (degraded-short: ")));
    // The policy that declares the mode accepts at least what the strict one does.
    assert.ok(withModes.overall.accepted >= strict.overall.accepted);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
