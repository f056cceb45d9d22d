import assert from "node:assert/strict";
import { InputError } from "../../schema/errors.ts";
import { ImportedManifest, isImported, parseAnyManifest } from "../../schema/imported_manifest.ts";

const EXPLORE = JSON.parse(Deno.readTextFileSync(new URL("../../data/runs/explore/run.json", import.meta.url)));

/** The smallest valid imported run.json. */
const imported = () => ({
  schema_version: 1,
  schema_minor: 4,
  kind: "imported",
  run_id: "import-llmperf-x",
  epoch_iso: "1970-01-01T00:00:00.000Z",
  source: {
    tool: "llmperf",
    tool_version: null,
    files: [{ path: "a.json", sha256: "0".repeat(64), format: "*_individual_responses.json" }],
    model: null,
    headlines: [],
    notes: [],
  },
  timeline: { kind: "durations_only", origin: "ms 0", epoch_known: false, scheduled_from: "none", rates: false },
  lacks: [{ field: "gates", consequence: "n/a, not failed" }],
  mapping: ["outcome: ok → ok"],
  workload: { name: "imported:llmperf", classes: ["imported"] },
  route: "(not stated)",
  stages: [{
    name: "run",
    kind: "steady",
    start_ms: 0,
    end_ms: 900,
    offered_rps: null,
    concurrency: 5,
    tool_duration_s: null,
    tool_totals: { ok: 1, error: 0, cancelled: null, incomplete: null },
  }],
  requests: 1,
  importer: { name: "goodput-import", version: "0.1.0", deno: "2" },
  files: {},
});

Deno.test("parseAnyManifest() reads either kind by `kind`, each against its own strict schema", async (t) => {
  await t.step("a runner's run.json (no kind) is the runner's manifest", () => {
    const m = parseAnyManifest(EXPLORE, "run.json");
    assert.equal(isImported(m), false);
    assert.equal(m.run_id, EXPLORE.run_id);
  });
  await t.step("an imported run.json is the imported kind", () => {
    const m = parseAnyManifest(imported(), "run.json");
    assert.ok(isImported(m));
    assert.equal(m.timeline.kind, "durations_only");
  });
  await t.step("a runner's run.json is not loosened: an imported run's field in it is refused", () => {
    assert.throws(
      () => parseAnyManifest({ ...EXPLORE, timeline: imported().timeline }, "x/run.json"),
      (e: Error) =>
        e instanceof InputError && /x\/run.json: invalid run manifest/.test(e.message) &&
        /Unrecognized key: "timeline"/.test(e.message),
    );
  });
  await t.step("a runner's run.json called imported is checked as imported and names every missing field", () => {
    assert.throws(() => parseAnyManifest({ ...EXPLORE, kind: "imported" }, "run.json"), (e: Error) => {
      const m = e.message;
      return /invalid imported run manifest/.test(m) && /run.json: source: /.test(m) &&
        /run.json: lacks: /.test(m) && /run.json: timeline: /.test(m);
    });
  });
  await t.step("an imported run.json states what it lacks (at least one lack) and is contract 1.4 or later", () => {
    assert.throws(() => ImportedManifest.parse({ ...imported(), lacks: [] }), /lacks/);
    assert.throws(() => ImportedManifest.parse({ ...imported(), schema_minor: 3 }), /schema_minor/);
  });
});
