import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSloPolicy, resolveWindow } from "../../../analysis/goodput/policy.ts";
import { InputError } from "../../../schema/errors.ts";
import { STAGES } from "../hand_fixture.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

Deno.test("loadSloPolicy names the file and every bad field", async () => {
  const file = join(Deno.makeTempDirSync(), "slo.json");
  Deno.writeTextFileSync(file, JSON.stringify({ denominator: "all", default: { tpot_ms: 0 } }));
  await assert.rejects(
    () => loadSloPolicy(file),
    (e) =>
      e instanceof InputError && /slo\.json: denominator/.test(e.message) &&
      /slo\.json: default\.tpot_ms/.test(e.message),
  );
  Deno.writeTextFileSync(file, "{ not json");
  await assert.rejects(() => loadSloPolicy(file), /slo\.json: cannot read SLO policy/);
});

Deno.test("the design-v1 policy takes each class's deadline, TTFT and TPOT from class_defaults.json", async () => {
  const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
  const defaults = JSON.parse(Deno.readTextFileSync(join(ROOT, "data/workloads/design-v1/class_defaults.json")));
  const classes = defaults.classes as Record<string, { deadline_ms: number; ttft_ms: number; tpot_ms: number }>;
  assert.deepEqual(Object.keys(policy.classes).sort(), Object.keys(classes).sort());
  for (const [name, c] of Object.entries(classes)) {
    const s = policy.classes[name]!;
    assert.deepEqual([s.e2e_ms, s.ttft_ms, s.tpot_ms], [c.deadline_ms, c.ttft_ms, c.tpot_ms], name);
  }
  assert.ok(policy.classes.extract_json!.gates.includes("schema_ok"));
  assert.deepEqual(policy.window, { exclude_stage_kinds: ["warmup", "drain"] });
});

Deno.test("window resolution", async (t) => {
  await t.step("named stages, and drain counted only when included", () => {
    const w = resolveWindow(STAGES, { exclude_stage_kinds: [], include_stages: ["peak", "drain"] });
    assert.deepEqual(w.stages, ["peak", "drain"]);
    assert.equal(w.measurement_seconds, 15); // 10 s peak + 5 s drain
    assert.deepEqual(w.stage_seconds, { peak: 10, drain: 5 });
  });
  await t.step("an explicit range overlapping two stages", () => {
    const w = resolveWindow(STAGES, { start_ms: 15_000, end_ms: 22_000 });
    assert.equal(w.measurement_seconds, 7);
    assert.deepEqual(w.stage_seconds, { low: 5, peak: 2 });
  });
  await t.step("unknown stage names and empty windows are input errors", () => {
    assert.throws(() => resolveWindow(STAGES, { exclude_stage_kinds: [], include_stages: ["nope"] }), /nope/);
    assert.throws(
      () => resolveWindow(STAGES, { exclude_stage_kinds: ["warmup", "steady", "burst", "drain"] }),
      /includes no stage/,
    );
    assert.throws(() => resolveWindow(STAGES, { start_ms: 5, end_ms: 5 }), InputError);
  });
});
