/**
 * The log read outside Deno: pandas (and pyarrow), DuckDB and polars read a normal run and a run where every request
 * failed, from Parquet and from CSV, with nothing but the files themselves (run.json is moved away first), through
 * `test/interop/read_run.py`; and every Python example of docs/log_format.md runs against the same runs. Needs
 * python3 with pandas, pyarrow, duckdb and polars (`.ci/run` installs them): in CI (CI=true) their absence fails the
 * test; elsewhere it is skipped with a loud message.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { type ColumnKind, columnSpecs } from "../../../schema/column_kinds.ts";
import { EPOCH_COLUMNS, type TableName } from "../../../schema/events.ts";
import { csvSchema, parquetMetadata } from "../../../schema/log_metadata.ts";
import { RunManifest } from "../../../schema/run_manifest.ts";
import { FORMULA_CASE, writeInteropRuns } from "./_interop_runs.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PACKAGES = ["pandas", "pyarrow", "duckdb", "polars"];

/** Whether python3 imports every package; in CI a missing one throws, elsewhere it warns and skips. */
function havePythonPackages(): boolean {
  let problem = "";
  try {
    const out = new Deno.Command("python3", {
      args: ["-c", `import ${PACKAGES.join(", ")}`],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    if (!out.success) problem = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "import failed";
  } catch (e) {
    problem = `no python3 (${(e as Error).message})`;
  }
  if (!problem) return true;
  const msg = `python3 with ${
    PACKAGES.join(", ")
  } is missing (${problem}; pip install -r test/interop/requirements.txt)`;
  if (Deno.env.get("CI") === "true") throw new Error(`CI: ${msg}; .ci/run installs them`);
  console.warn(`\n!!! SKIPPED: ${msg}; in CI this is a failure !!!\n`);
  return false;
}

async function python(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("python3", { args, cwd: ROOT, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** What each reader must call a column of each kind: integers never float, booleans never text. */
const DTYPES: Record<string, Record<ColumnKind, string>> = {
  pandas: { int: "Int64", float: "Float64", boolean: "boolean", string: "string" },
  duckdb: { int: "BIGINT", float: "DOUBLE", boolean: "BOOLEAN", string: "VARCHAR" },
  polars: { int: "Int64", float: "Float64", boolean: "Boolean", string: "String" },
};
const READS = ["pandas/parquet", "pandas/csv", "duckdb/parquet", "duckdb/csv", "polars/parquet", "polars/csv"];

interface Summary {
  rows: number;
  dtypes: Record<string, string>;
  nulls: Record<string, number>;
  run_ids: string[];
  first_row: Record<string, unknown> | null;
  first_times: Record<string, number | null>;
  same_as_parquet?: boolean;
}
interface RunRead {
  metadata: Record<string, Record<string, string>>;
  sidecars: Record<string, unknown>;
  reads: Record<string, Record<string, Summary>>;
}

/** The contract's reading of a table (runner/sinks/csv_read.ts): the values every reader must find. */
/** The rows the runner wrote, with the epoch column (contract 1.6) every reader must read: `epochMs` + its anchor. */
async function truth(dir: string, table: TableName, epochMs: number) {
  const { name, of } = EPOCH_COLUMNS[table];
  return ((await readLogCsv(join(dir, `${table}.csv`), table)) as Record<string, unknown>[])
    .map((r) => ({ ...r, [name]: epochMs + (r[of] as number) }));
}

Deno.test({
  name: "pandas, pyarrow, DuckDB and polars read a normal run and an all-failed run without run.json: types, nulls, " +
    "run_id, timestamps",
  ignore: !havePythonPackages(),
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "interop-" });
    try {
      const runs = await writeInteropRuns(dir);
      const manifests = new Map<string, RunManifest>();
      for (const run of [runs.normal, runs.failed]) {
        manifests.set(run, RunManifest.parse(JSON.parse(await Deno.readTextFile(join(run, "run.json")))));
        // The readers get the log files alone.
        await Deno.rename(join(run, "run.json"), join(dir, `${manifests.get(run)!.run_id}.run.json`));
      }
      const res = await python(["test/interop/read_run.py", runs.normal, runs.failed]);
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout) as { versions: Record<string, string>; runs: Record<string, RunRead> };

      for (const [label, run] of [["normal", runs.normal], ["failed", runs.failed]] as const) {
        const m = manifests.get(run)!;
        const identity = { run_id: m.run_id, epoch_iso: m.epoch_iso };
        const epochMs = Date.parse(m.epoch_iso);
        const read = out.runs[run]!;
        const tables: TableName[] = label === "normal"
          ? ["requests", "attempts", "tools", "server"]
          : ["requests", "attempts", "tools"];
        await t.step(`${label}: every table, every reader, every format`, async () => {
          assert.deepEqual(Object.keys(read.metadata), tables);
          for (const table of tables) {
            const rows = await truth(run, table, epochMs);
            if (label === "normal") assert.ok(rows.length > 0, `${table} has rows`);
            // Parquet metadata and CSV sidecar say what the runner wrote.
            const kv = Object.fromEntries(parquetMetadata(table, identity).map((e) => [e.key.slice(17), e.value]));
            assert.deepEqual(read.metadata[table], kv, `${table} metadata`);
            assert.deepEqual(read.sidecars[table], csvSchema(table, identity), `${table} sidecar`);
            for (const how of READS) {
              const s = read.reads[how]![table]!;
              const reader = how.split("/")[0]!;
              const at = `${label} ${how} ${table}`;
              const pandas = reader === "pandas";
              assert.equal(s.rows, rows.length, `${at}: rows`);
              assert.deepEqual(
                s.dtypes,
                Object.fromEntries(columnSpecs(table).map((c) => [c.name, DTYPES[reader]![c.kind]])),
                `${at}: dtypes`,
              );
              // pandas reads "" (the empty string) as null: counted as null there, kept apart elsewhere.
              const isNull = (v: unknown) => v === null || (pandas && v === "");
              assert.deepEqual(
                s.nulls,
                Object.fromEntries(
                  columnSpecs(table).map((c) => [c.name, rows.filter((r) => isNull(r[c.name])).length]),
                ),
                `${at}: null counts`,
              );
              assert.deepEqual(s.run_ids, rows.length ? [m.run_id] : [], `${at}: run_id`);
              const first = rows[0];
              assert.deepEqual(
                s.first_row,
                first ? Object.fromEntries(Object.entries(first).map(([k, v]) => [k, isNull(v) ? null : v])) : null,
                `${at}: first row`,
              );
              for (const c of columnSpecs(table).filter((c) => c.unit === "ms since epoch_iso")) {
                const v = first?.[c.name] as number | null | undefined;
                const got = s.first_times[c.name];
                if (v === null || v === undefined) assert.equal(got, null, `${at}: ${c.name}`);
                else {
                  // epoch_iso + value ms; DuckDB and polars keep microseconds.
                  assert.ok(
                    got !== null && got !== undefined && Math.abs(got - (epochMs + v)) < 0.0015,
                    `${at}: ${c.name}`,
                  );
                }
              }
              if (how.endsWith("/csv")) assert.equal(s.same_as_parquet, true, `${at}: the CSV reads as the Parquet`);
            }
          }
        });
      }

      await t.step("the all-failed run: gates, http_status and latencies are typed nulls, not text or floats", () => {
        const read = out.runs[runs.failed]!;
        for (const how of READS) {
          const s = read.reads[how]!.requests!;
          const reader = how.split("/")[0]!;
          for (const c of ["http_status", "output_valid", "quality_ok", "completed_ms", "first_token_ms"]) {
            assert.equal(s.nulls[c], s.rows, `${how}: ${c} is null in every row`);
          }
          assert.equal(s.dtypes.http_status, DTYPES[reader]!.int, how);
          assert.equal(s.dtypes.output_valid, DTYPES[reader]!.boolean, how);
          // The case id is a formula to a spreadsheet: the CSV escapes it, every reader gets it back.
          assert.equal(s.first_row?.case_id, FORMULA_CASE, how);
          assert.equal(s.first_row?.outcome, "transport_error", how);
          assert.equal(read.reads[how]!.tools!.rows, 0, `${how}: no tool ran`);
        }
        assert.ok(Deno.readTextFileSync(join(runs.failed, "requests.csv")).includes(`,'${FORMULA_CASE},`));
      });

      await t.step("the versions read are the pinned ones, and the docs name them", async () => {
        const doc = await Deno.readTextFile(join(ROOT, "docs/log_format.md"));
        const pins = (await Deno.readTextFile(join(ROOT, "test/interop/requirements.txt"))).split("\n")
          .filter((l) => l && !l.startsWith("#")).map((l) => l.split("=="));
        assert.deepEqual(pins.map(([p]) => p), PACKAGES);
        for (const [name, version] of pins) {
          assert.ok(doc.includes(`${name} ${version}`), `docs/log_format.md names ${name} ${version}`);
          // Outside CI another installed version is read as it is; CI installs the pins.
          if (Deno.env.get("CI") === "true") assert.equal(out.versions[name!], version, name);
        }
      });

      await t.step("every Python example of docs/log_format.md runs", async () => {
        const doc = await Deno.readTextFile(join(ROOT, "docs/log_format.md"));
        const blocks = [...doc.matchAll(/```python\n([\s\S]*?)```/g)].map((b) => b[1]!);
        // A block that starts with an import starts a session; the blocks after it continue it, as a reader would.
        const sessions: string[] = [];
        for (const b of blocks) {
          if (b.startsWith("import") || !sessions.length) sessions.push(b);
          else sessions[sessions.length - 1] += b;
        }
        assert.equal(sessions.length, 4, "pandas, DuckDB, polars, older logs");
        const given = `run = ${JSON.stringify(runs.normal)}\nruns = ${JSON.stringify([runs.normal, runs.failed])}\n` +
          `old_run = "test/testdata/contract-1.0"\n`;
        for (const [i, code] of sessions.entries()) {
          const r = await python(["-c", given + code]);
          assert.equal(r.code, 0, `example ${i + 1}:\n${code}\n${r.stderr}`);
          // Each prints a table or values with the run_id (the older log's from its run.json).
          assert.match(r.stdout, i < 3 ? /run_id/ : /route-selfhosted-alone-safety/, `example ${i + 1} printed`);
        }
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
