import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { writeCsvSchema } from "../../../runner/sinks/csv_schema.ts";
import { csvToParquet } from "../../../runner/sinks/parquet_writer.ts";
import { providerSignals } from "../../../runner/provider_signals.ts";
import { epochMsOf, PROVIDER_SIGNAL_COLUMNS } from "../../../schema/events.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { att, makeManifest, req, sha256, writeManifest } from "../_fixture.ts";

const QUIET = { onWarning: () => {} };
const SIGNALS = PROVIDER_SIGNAL_COLUMNS;
/** The committed run of contract 1.6, before these columns. */
const V1_6 = new URL("../../testdata/contract-1.6", import.meta.url).pathname;
const EPOCH_ISO = "2026-01-01T00:00:00.000Z";
const STAGES = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 10_000, offered_rps: 1 }];

/** A 1.7 run written by the runner's own writers: one attempt with every provider signal, one with none. */
async function writeSignalsRun(dir: string): Promise<string> {
  Deno.mkdirSync(dir, { recursive: true });
  const manifest: RunManifest = makeManifest(STAGES, { epoch_iso: EPOCH_ISO });
  const identity = { run_id: manifest.run_id, epoch_iso: EPOCH_ISO };
  const tables = {
    requests: ["a", "b"].map((id, i) => req({ request_id: id, class: "c", stage: "s", scheduled_ms: 100 * i })),
    attempts: [
      att({
        request_id: "a",
        sent_ms: 1,
        ...providerSignals(
          {
            limit_requests: 500,
            remaining_requests: 12,
            limit_tokens: 30_000,
            remaining_tokens: 0,
            reset_requests_ms: 1500.5,
            reset_tokens_ms: 0,
          },
          "priority",
          "default",
        ),
      }),
      att({ request_id: "b", sent_ms: 101, ...providerSignals(null, null, null) }),
    ],
    tools: [],
  };
  const files: Record<string, string> = {};
  for (const table of ["requests", "attempts", "tools"] as const) {
    const sink = CsvSink.open(dir, table, { epochMs: epochMsOf(EPOCH_ISO) });
    for (const row of tables[table]) sink.append(row as never);
    sink.close();
    writeCsvSchema(dir, table, { identity });
    await csvToParquet(dir, table, { identity });
    for (const f of [`${table}.csv`, `${table}.parquet`]) files[f] = sha256(join(dir, f));
  }
  writeManifest(dir, { ...manifest, runner: { ...manifest.runner, formats: ["csv", "parquet"] }, files });
  return dir;
}

Deno.test("contract 1.7: the provider's tier and limits read back as written, and as null from a 1.6 log", async (t) => {
  const dir = await writeSignalsRun(join(Deno.makeTempDirSync(), "run"));
  const csvDir = join(Deno.makeTempDirSync(), "csv");
  Deno.mkdirSync(csvDir);
  for (const e of Deno.readDirSync(dir)) {
    if (!e.name.endsWith(".parquet")) Deno.copyFileSync(join(dir, e.name), join(csvDir, e.name));
  }
  for (const [how, folder] of [["parquet", dir], ["csv", csvDir]] as const) {
    await t.step(`${how}: values and dtypes`, async () => {
      const run = await loadRun(folder, QUIET);
      assert.equal(run.format, how);
      const rows = run.attempts.select(...SIGNALS).toRecords();
      assert.deepEqual(rows[0], {
        service_tier_requested: "priority",
        service_tier: "default",
        rl_limit_requests: 500,
        rl_remaining_requests: 12,
        rl_limit_tokens: 30000,
        rl_remaining_tokens: 0,
        rl_reset_requests_ms: 1500.5,
        rl_reset_tokens_ms: 0,
      });
      assert.deepEqual(Object.values(rows[1]!), SIGNALS.map(() => null));
      const dtypes = SIGNALS.map((c) => String(run.attempts.getColumn(c).dtype.variant));
      assert.deepEqual(dtypes, ["String", "String", "Int64", "Int64", "Int64", "Int64", "Float64", "Float64"]);
    });
  }
  for (const open of [loadRun, scanRun]) {
    await t.step(`a 1.6 log (${open.name}): every 1.7 column null, with the contract's dtype`, async () => {
      const run = await open(V1_6, QUIET);
      assert.equal(run.manifest.schema_minor, 6);
      const frame = "collectSync" in run.attempts ? run.attempts.collectSync() : run.attempts;
      assert.ok(frame.height > 0);
      for (const c of SIGNALS) assert.equal(frame.getColumn(c).nullCount(), frame.height, c);
      assert.equal(String(frame.getColumn("rl_limit_tokens").dtype.variant), "Int64");
      assert.equal(String(frame.getColumn("service_tier").dtype.variant), "String");
    });
  }
});
