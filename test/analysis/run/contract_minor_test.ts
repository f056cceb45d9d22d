import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { COLUMN_SINCE_MINOR, COLUMNS, columnsAt, EPOCH_COLUMNS } from "../../../schema/events.ts";
import { SCHEMA_MINOR } from "../../../schema/version.ts";
import { makeManifest, req, writeManifest, writeRun } from "../_fixture.ts";

const quiet = { onWarning: () => {} };
/** A real run written by the runner under contract 1.0 (a copy of an earlier sample run). */
const V1_0 = new URL("../../testdata/contract-1.0", import.meta.url).pathname;
const stages = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 1000, offered_rps: 1 }];

Deno.test("a contract 1.0 log reads the columns added later as null (not recorded), and run_id from run.json", async (t) => {
  for (const open of [loadRun, scanRun]) {
    await t.step(open.name, async () => {
      const run = await open(V1_0, quiet);
      assert.equal(run.manifest.schema_minor, 0);
      for (const table of ["requests", "attempts", "tools", "server"] as const) {
        const read = run[table]!;
        const frame = "collectSync" in read ? read.collectSync() : read;
        assert.deepEqual(frame.columns, COLUMNS[table]);
        // That run made no tool calls: its tools table is empty, still typed and with run_id.
        assert.ok(frame.height > 0 || table === "tools");
        const epoch = EPOCH_COLUMNS[table];
        for (const c of Object.keys(COLUMN_SINCE_MINOR[table] ?? {})) {
          if (c === "run_id" || c === epoch.name) continue;
          assert.equal(frame.getColumn(c).nullCount(), frame.height, `${table}.${c} is all null`);
        }
        // The epoch column (1.6) is derived from run.json: epoch_iso + the anchor, row by row, as a 1.6 writer writes it.
        const epochMs = Date.parse(run.manifest.epoch_iso);
        const anchors = frame.getColumn(epoch.of).toArray() as number[];
        assert.deepEqual(frame.getColumn(epoch.name).toArray(), anchors.map((t) => epochMs + t), epoch.name);
        assert.equal(String(frame.getColumn(epoch.name).dtype.variant), "Float64");
        // The file has no run_id column (attempts, tools and server carry it from 1.3 on): every row gets run.json's.
        const ids = frame.getColumn("run_id").unique().toArray();
        assert.deepEqual(ids, table === "tools" ? [] : [run.manifest.run_id], table);
        assert.equal(String(frame.getColumn("run_id").dtype.variant), "String");
      }
    });
  }
});

Deno.test("a log of a newer contract minor version is refused, naming run.json", async () => {
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(stages), {
    requests: [req({ request_id: "a", class: "c", stage: "s", scheduled_ms: 0 })],
    attempts: [],
  });
  const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
  writeManifest(dir, { ...m, schema_minor: SCHEMA_MINOR + 1 });
  await assert.rejects(() => loadRun(dir, quiet), new RegExp(`run.json: schema_minor ${SCHEMA_MINOR + 1} is newer`));
});

Deno.test("a 1.1 log must have the 1.1 columns: one without them is refused, naming the missing columns", async () => {
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(stages), {
    requests: [req({ request_id: "a", class: "c", stage: "s", scheduled_ms: 0, streamed: false })],
    attempts: [],
  });
  // Rewrite requests.csv with the 1.0 columns only, under a manifest that still says 1.1.
  const text = Deno.readTextFileSync(join(dir, "requests.csv")).split("\n");
  const header = text[0]!.split(",");
  const keep = columnsAt("requests", 0).map((c) => header.indexOf(c));
  const cut = text.map((l) => l ? l.split(",").filter((_, i) => keep.includes(i)).join(",") : l).join("\n");
  Deno.writeTextFileSync(join(dir, "requests.csv"), cut);
  const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
  writeManifest(dir, { ...m, files: {} });
  await assert.rejects(
    () => loadRun(dir, { ...quiet, verify: "warn" }),
    (e: Error & { problems?: string[] }) =>
      /missing columns: streamed, applicable_gates, service_mode, reasoning_tokens, cache_write_tokens/.test(
        (e.problems ?? []).join("\n"),
      ),
  );
});

Deno.test("a 1.1 log keeps its 1.1 values through CSV", async () => {
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(stages), {
    requests: [
      req({
        request_id: "a",
        class: "c",
        stage: "s",
        scheduled_ms: 0,
        streamed: false,
        applicable_gates: "output_valid,quality_ok",
        service_mode: "degraded-short",
        reasoning_tokens: 12,
        cache_write_tokens: 0,
      }),
    ],
    attempts: [],
  });
  const run = await loadRun(dir, quiet);
  const r = run.requests.toRecords()[0]!;
  assert.deepEqual(
    [r.streamed, r.applicable_gates, r.service_mode, r.reasoning_tokens, r.cache_write_tokens],
    [false, "output_valid,quality_ok", "degraded-short", 12, 0],
  );
});
