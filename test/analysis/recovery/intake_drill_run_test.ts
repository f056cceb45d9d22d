import assert from "node:assert/strict";
import { join } from "node:path";
import { intakeDrills } from "../../../analysis/recovery/intake_drill.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { loadSimProfile } from "../../../schema/sim_profile.ts";
import { runCli } from "../../support/run_cli.ts";
import { runDesignV1OnSim } from "../../support/sim_run.ts";
import { writeJson } from "../../../testing/tiny_workload.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

Deno.test("the example drill plan against the simulator: clean refusals, in-flight tasks finish, intake resumes", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    // data/plans/intake-drill.json (10 req/s for 6 s; stop at 2 s, resume at 4 s), its hook pointed at this test's
    // simulator once it has a port. fast.json with 5 ms steps: answers of 100–500 tokens take 0.5–2.5 s, so tasks
    // are in flight at the stop.
    const example = JSON.parse(Deno.readTextFileSync(join(ROOT, "data/plans/intake-drill.json")));
    const fast = await loadSimProfile(join(ROOT, "data/sim/fast.json"));
    const profile = { ...fast, engine: { ...fast.engine, decode_step_ms_base: 5 } };
    const { dir: runDir, manifest } = await runDesignV1OnSim(dir, {
      plan: (sim) => {
        const hook = { url: `${sim.url}/admin/intake` };
        return writeJson(dir, "plan.json", { ...example, drills: example.drills.map((d: object) => ({ ...d, hook })) });
      },
      simSeed: 1,
      formats: ["csv"],
      profile,
    });
    const calls = manifest.drills![0]!.calls;
    assert.deepEqual(calls.map((c) => [c.action, c.status, c.ok]), [["stop", 200, true], ["resume", 200, true]]);

    const run = await loadRun(runDir, { onWarning: () => {} });
    const d = intakeDrills(run).drills[0]!;
    // The simulator refuses at once: at 10 req/s at most the one arrival between the call and the switch is served.
    assert.ok(d.new_tasks.n >= 15, `${d.new_tasks.n} new tasks`);
    assert.equal(d.new_tasks.not_clean, 0);
    assert.ok(d.refusal.lag_ms !== null && d.refusal.lag_ms < 300, `refusal lag ${d.refusal.lag_ms}`);
    assert.ok(d.refusal.served_before <= 1);
    assert.ok(d.in_flight.n >= 3, `${d.in_flight.n} in flight`);
    assert.deepEqual([d.in_flight.completed, d.in_flight.failed], [d.in_flight.n, 0]);
    assert.ok(d.resumed?.lag_ms !== null && d.resumed!.lag_ms! < 300, `resume lag ${d.resumed?.lag_ms}`);

    const cli = await runCli(
      join(ROOT, "analysis/cli/analyze.ts"),
      [runDir, "--slo", join(ROOT, "data/slo/design-v1.json"), "--json"],
      ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"],
    );
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout).intake_drills.drills[0].refusal, d.refusal);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
