import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compare } from "../../analysis/compare/compare.ts";
import { knee } from "../../analysis/knee/knee.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../analysis/run/loaded_run.ts";
import { detectOutages } from "../../analysis/recovery/outages.ts";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import { InputError } from "../../schema/errors.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RUNS = join(ROOT, "data/runs");
const SAMPLES = ["explore", "route-hosted", "route-selfhosted", "route-hybrid", "route-selfhosted-alone-safety"];

Deno.test("every sample run in data/runs loads with its file hashes verified and is what its name says", async (t) => {
  const loaded = new Map<string, LoadedRun>();
  for (const id of SAMPLES) {
    await t.step(`${id} loads strictly and finished`, async () => {
      const run = await loadRun(join(RUNS, id), { verify: "strict" });
      assert.equal(run.manifest.run_id, id);
      const m = run.manifest as RunManifest; // every sample is a runner run
      assert.equal(m.result.status, "complete");
      assert.ok(run.server !== null, "the simulator's server timeline is in the log");
      assert.equal(run.requests.height, m.result.offered, "one requests row per offered request");
      loaded.set(id, run);
    });
  }
  await t.step("the folders hold Parquet logs only (no CSV copies)", () => {
    for (const id of SAMPLES) {
      const names = [...Deno.readDirSync(join(RUNS, id))].map((e) => e.name);
      assert.deepEqual(names.filter((n) => n.endsWith(".csv") && n !== "schedule.csv"), [], id);
      assert.ok(names.includes("requests.parquet"), id);
    }
  });
  await t.step("the route runs ran one schedule and one workload on three routes", () => {
    const routes = ["route-hosted", "route-selfhosted", "route-hybrid"].map((id) =>
      loaded.get(id)!.manifest as RunManifest
    );
    assert.equal(new Set(routes.map((m) => m.plan.schedule_sha256)).size, 1);
    assert.equal(new Set(routes.map((m) => m.workload.sha256)).size, 1);
    assert.deepEqual(routes.map((m) => m.plan.path), Array(3).fill("data/plans/routes-compare.json"));
  });
  await t.step("the single-class run offers the safety class only", () => {
    const classes = loaded.get("route-selfhosted-alone-safety")!.requests.getColumn("class").unique().toArray();
    assert.deepEqual(classes, ["safety"]);
  });
});

Deno.test("a sample run whose log was altered is refused (the hash check is live)", async () => {
  const copy = await Deno.makeTempDir({ prefix: "samples-test-" });
  try {
    for (const e of Deno.readDirSync(join(RUNS, "route-hybrid"))) {
      await Deno.copyFile(join(RUNS, "route-hybrid", e.name), join(copy, e.name));
    }
    // A log file that no longer matches the sha256 that run.json recorded when the run was finalised.
    const manifest = JSON.parse(await Deno.readTextFile(join(copy, "run.json")));
    assert.match(manifest.files["tools.parquet"], /^[0-9a-f]{64}$/);
    manifest.files["tools.parquet"] = "0".repeat(64);
    await Deno.writeTextFile(join(copy, "run.json"), JSON.stringify(manifest));
    await assert.rejects(
      loadRun(copy, { verify: "strict" }),
      (e) => e instanceof InputError && /sha256/.test(e.message),
    );
  } finally {
    await Deno.remove(copy, { recursive: true });
  }
});

Deno.test("the route sample runs are comparable and show crowding-out data for the single-class run", async () => {
  const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
  const load = (id: string) => loadRun(join(RUNS, id));
  const runs = await Promise.all(["route-hosted", "route-selfhosted", "route-hybrid"].map(load));
  const single = await load("route-selfhosted-alone-safety");
  const result = compare(runs, policy, { singleClassRuns: [single] });
  assert.equal(result.forced, false);
  assert.deepEqual(result.differences.filter((d) => d.blocking), []);
  assert.deepEqual(result.routes.map((r) => r.route), ["hosted", "selfhosted", "hybrid"]);
  for (const r of result.routes) assert.equal(r.by_class.length, 6, `${r.route}: six classes of design-v1`);
  assert.equal(result.crowding.length, 1);
  assert.equal(result.crowding[0]!.route, "selfhosted");
  assert.equal(result.crowding[0]!.class, "safety");
  assert.ok(result.crowding[0]!.alone_n > 0 && result.crowding[0]!.mixed_n > 0);
});

Deno.test("explore: the knee analysis finds its load levels, and the outage is in the log", async (t) => {
  const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
  const run = await loadRun(join(RUNS, "explore"));
  await t.step("levels 4, 6, 8, 10, 12 and the 20 req/s burst", () => {
    const k = knee([run], policy);
    assert.deepEqual(k.levels.map((l) => l.planned_rps), [4, 6, 8, 10, 12, 20]);
  });
  await t.step("one 503 outage detected inside 71–75 s (the profile saved beside the run)", async () => {
    const profile = JSON.parse(await Deno.readTextFile(join(RUNS, "explore/sim-profile.json")));
    const planned = profile.faults.outages[0];
    const found = detectOutages(run).outages;
    assert.equal(found.length, 1);
    assert.ok(found[0]!.start_ms >= planned.start_ms && found[0]!.start_ms < planned.end_ms, `${found[0]!.start_ms}`);
    assert.ok((found[0]!.by_kind["http_503"] ?? 0) >= 3);
  });
});
