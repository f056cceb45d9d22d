/**
 * Opens a production recording's folder (run.json `kind: "production"` + `part-NNNNN/` folders): each part's tables
 * as CSV or Parquet, in part order, a table a part does not hold read as empty; checks that every row carries the
 * run's id (row checks, as for any run) and that no request id is in two parts; recomputes each stage window's
 * observed rate; and says where the log ends.
 *
 * @module
 */
import pl from "nodejs-polars";
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import type { TableName } from "../../schema/events.ts";
import { PART_DIR_PATTERN, type ProductionManifest } from "../../schema/production_manifest.ts";
import { checkDistinctIds } from "./_distinct_ids.ts";
import { absentTable, exists, type OpenedTable, scanTable, verifier } from "./_scan_table.ts";
import { type PartRead, productionRunEnd, productionStages } from "./production_run.ts";
import type { OpenedRun } from "./_opened_run.ts";

/** The tables a recording's part can hold. */
const PART_TABLES: TableName[] = ["requests", "attempts", "tools", "phases"];

/** How a recording is opened. */
interface ProductionOpen {
  verify: "strict" | "warn";
  warning: (m: string) => void;
  warnings: string[];
}

/** The part folders on disk that run.json does not list: refused in a closed recording, a warning in an open one. */
async function unlistedParts(path: string, m: ProductionManifest, o: ProductionOpen): Promise<void> {
  const listed = new Set(m.parts.map((p) => p.dir));
  const extra: string[] = [];
  for await (const e of Deno.readDir(path)) {
    if (e.isDirectory && PART_DIR_PATTERN.test(e.name) && !listed.has(e.name)) extra.push(e.name);
  }
  if (!extra.length) return;
  const msg = `${path}: part folders not in run.json parts: ${extra.sort().join(", ")}`;
  if (m.observation.status === "closed") throw new InputError(`${msg}: a closed recording lists every part it wrote`);
  o.warning(`${msg} (started after run.json's last update): not read`);
}

/** The format a part is read in: run.json's, or the other when the folder holds only that (run.json lags behind). */
async function partFormat(dir: string, declared: "csv" | "parquet", o: ProductionOpen): Promise<"csv" | "parquet"> {
  const other = declared === "csv" ? "parquet" : "csv";
  const has = async (f: string) => {
    for (const t of PART_TABLES) if (await exists(join(dir, `${t}.${f}`))) return true;
    return false;
  };
  if ((await has(declared)) || !(await has(other))) return declared;
  o.warning(
    `${dir}: run.json says ${declared}, but the folder holds ${other} files only (rotated after run.json's ` +
      `last update): read as ${other}`,
  );
  return other;
}

/**
 * Opens a production recording ({@linkcode PartRead} for each part). A part's file whose sha256 run.json lists is
 * verified as `verify` says; a part still being written lists none (a warning says its files are not verified), and
 * a closed recording must list every file it holds.
 */
export async function openProduction(path: string, m: ProductionManifest, o: ProductionOpen): Promise<OpenedRun> {
  await unlistedParts(path, m, o);
  const open = m.observation.status === "recording";
  const parts = [...m.parts].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  const dirs: string[] = [], read: PartRead[] = [], shards: OpenedTable[][] = [];
  for (const [k, part] of parts.entries()) {
    const dir = join(path, part.dir);
    if (!(await exists(dir))) {
      if (part.requests > 0) throw new InputError(`${dir}: missing part folder (run.json lists ${part.requests} rows)`);
      o.warning(`${dir}: no part folder (run.json lists no row in it): read as empty`);
    }
    const format = await partFormat(dir, part.format, o);
    const tables: OpenedTable[] = [], found: TableName[] = [];
    const unlisted: string[] = [];
    for (const table of PART_TABLES) {
      const name = `${table}.${format}`, file = join(dir, name);
      if (!(await exists(file))) {
        tables.push(absentTable(file, table, m.run_id));
        continue;
      }
      found.push(table);
      const want = part.files[name];
      if (want === undefined) unlisted.push(name);
      // The part being written may end mid-row (the recorder's writes are whole rows, but a copy can catch one).
      const scan = await scanTable(file, table, {
        format,
        minor: m.schema_minor,
        runId: m.run_id,
        epochIso: m.epoch_iso,
        killed: open && part.ended_ms === null,
        warning: o.warning,
      });
      const verify = verifier(file, {
        want,
        listed: `parts[${k}].files["${name}"]`,
        mode: o.verify,
        warning: o.warning,
      });
      tables.push({ table, file, run_id: m.run_id, scan, verify });
    }
    if (unlisted.length) {
      const msg = `${dir}: ${unlisted.join(", ")} not listed in run.json parts[${k}].files, so ${
        unlisted.length > 1 ? "their" : "its"
      } sha256 cannot be verified`;
      // Only the part an open recording is writing lists no files yet.
      const writing = open && part.ended_ms === null;
      if (writing || o.verify === "warn") o.warning(`${msg}${writing ? " (the part is being written)" : ""}`);
      else throw new InputError(msg);
    }
    dirs.push(dir);
    read.push({ dir: part.dir, format, tables: found });
    shards.push(tables);
  }
  const requests = shards.map((t) => t.find((x) => x.table === "requests")!.scan);
  checkDistinctIds(path, requests, "part");
  const all = requests.length === 1 ? requests[0]! : pl.concat(requests, { how: "vertical" });
  const at = pl.col("scheduled_ms");
  const cut = m.observation.ended_ms;
  const counts = (await all.select(
    // Each window as the analysis uses it: clipped at the observation's end.
    ...m.stages.map((s, i) =>
      at.gtEq(s.start_ms).and(at.lt(Math.min(s.end_ms, cut))).cast(pl.Float64).sum().alias(`s${i}`)
    ),
    at.gtEq(cut).cast(pl.Float64).sum().alias("after"),
  ).collect()).toRecords()[0] ?? {};
  const stages = productionStages(m, m.stages.map((_, i) => Number(counts[`s${i}`] ?? 0)));
  const end = productionRunEnd(m, stages, open ? Number(counts.after ?? 0) : 0);
  if (!open && Number(counts.after ?? 0) > 0) {
    o.warning(
      `${path}: ${counts.after} requests scheduled at or after observation.ended_ms ${cut} ms of a closed ` +
        "recording: outside every window",
    );
  }
  const format = read.every((p) => p.format === "parquet") ? "parquet" : "csv";
  const manifest = { ...m, stages: stages.stages };
  const shard_set = { count: 1, present: [0], missing: [] };
  return {
    dirs,
    manifests: [manifest],
    format,
    parts: read,
    shards,
    end,
    shard_set,
    warnings: o.warnings,
    warning: o.warning,
    // The recorder writes a task's rows whole; a write that failed mid-task can leave some without their request.
    lenient: () => true,
  };
}
