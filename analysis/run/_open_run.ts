import pl from "nodejs-polars";
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { TABLE_SINCE_MINOR, type TableName } from "../../schema/events.ts";
import { logEndsEarly, type RunManifest } from "../../schema/run_manifest.ts";
import { type AnyManifest, type ImportedManifest, isImported, isRunnerRun } from "../../schema/imported_manifest.ts";
import { isProduction } from "../../schema/production_manifest.ts";
import { clipManifests, type E2eDeadlines, endOpenedRun, type RunEnd } from "./run_end.ts";
import { checkShardSet, partialWarning, type ShardSet } from "./_shard_set.ts";
import { checkDistinctIds } from "./_distinct_ids.ts";
import { oneFolder, readManifest, runDirs, warningCollector } from "./_run_folders.ts";
import { absentTable, exists, type OpenedTable, scanTable, sha256File, verifier } from "./_scan_table.ts";
import { openProduction } from "./_open_production.ts";
import type { OpenedRun } from "./_opened_run.ts";
import type { PartRead } from "./production_run.ts";

export { type OpenedRun, type OpenedTable, sha256File };

/** Options shared by `loadRun` and `scanRun`. */
export interface OpenRunOptions {
  /**
   * `strict` refuses a log file whose sha256 differs from run.json `files`;
   * `warn` reads it and keeps a loud warning in `warnings`. @default "strict"
   */
  verify?: "strict" | "warn";
  /** Receives each warning as it is raised. @default console.warn */
  onWarning?: (message: string) => void;
  /**
   * Analyse a sharded run with shards missing: the present shards alone, with
   * a loud warning and the missing shards in `shard_set` (the disclosure says
   * so). Otherwise a missing shard is refused like every other shard-set
   * problem. @default false
   */
  allowPartialShards?: boolean;
  /**
   * The e2e limits of the SLO policy the run is analysed under (`e2eDeadlines(policy, source)`): a request in
   * flight at the stop already past its limit at the log's end failed, and is not censored (`RunEnd.decided`).
   * Without them every request the stop cut off is censored. @default undefined
   */
  deadlines?: E2eDeadlines | undefined;
}

const REQUIRED: TableName[] = ["requests", "attempts", "tools"];

/**
 * Opens a run folder (run.json + requests/attempts/tools[/server][/phases] as
 * Parquet or CSV; Parquet when every shard has it) or a folder of
 * `shard-i-of-N/` folders: reads and checks every run.json, checks that the
 * shards belong to one run, and scans every log file (columns checked,
 * nothing else read). A production recording (run.json `kind: "production"`)
 * is read part by part (`_open_production.ts`). The phases table (contract
 * 1.5) is read where a folder holds one; elsewhere it is empty.
 * Hashes are checked only when the caller runs each table's `verify`.
 */
export async function openRun(path: string, options: OpenRunOptions = {}): Promise<OpenedRun> {
  const verifyMode = options.verify ?? "strict";
  const { warnings, warning } = warningCollector(options.onWarning);

  const dirs = await runDirs(path);
  const manifests: AnyManifest[] = [];
  for (const dir of dirs) manifests.push(await readManifest(dir));
  const production = manifests.find(isProduction);
  if (production) {
    oneFolder(path, dirs, "a production recording's", "the recorder writes parts (part-NNNNN/), never shards");
    return openProduction(path, production, { verify: verifyMode, warning, warnings });
  }
  const shard_set = manifests.some(isImported)
    ? oneFolder(path, dirs, "an imported run's", "an imported run is one folder, never sharded")
    : checkShardSet(path, dirs, manifests as RunManifest[], options.allowPartialShards ?? false);
  const partial = partialWarning(path, shard_set);
  if (partial) warning(partial);

  let allParquet = true;
  for (const dir of dirs) {
    for (const t of REQUIRED) if (!(await exists(join(dir, `${t}.parquet`)))) allParquet = false;
  }
  const format = allParquet ? "parquet" : "csv";

  const shards: OpenedTable[][] = [];
  for (const [k, dir] of dirs.entries()) {
    const m = manifests[k]! as RunManifest | ImportedManifest;
    // A killed run, or one a failed log write stopped (a full disk): its log may end early, mid-request.
    const running = isRunnerRun(m) && logEndsEarly(m.result);
    if (running) {
      warning(
        m.result.status === "running"
          ? `${join(dir, "run.json")}: result.status is "running": the run was killed before finalising`
          : `${join(dir, "run.json")}: result.status is "write_failed": a log write failed (${
            m.result.write_error?.file ?? "?"
          }: ${m.result.write_error?.code ?? m.result.write_error?.message ?? "?"}), the log ends there`,
      );
    }
    const tables: OpenedTable[] = [];
    for (const table of [...REQUIRED, "server" as const, "phases" as const]) {
      const name = `${table}.${format}`;
      const file = join(dir, name);
      const since = TABLE_SINCE_MINOR[table] ?? 0;
      if (since > m.schema_minor || !(await exists(file))) {
        if (table === "phases") tables.push(absentTable(file, table, m.run_id));
        if (table === "server" || table === "phases") continue;
        throw new InputError(`${file}: missing ${table} log`);
      }
      const want = m.files[name];
      if (want === undefined) {
        const msg = `${file}: not listed in run.json files, so its sha256 cannot be verified`;
        if (running || verifyMode === "warn") warning(msg);
        else throw new InputError(msg);
      }
      const scan = await scanTable(file, table, {
        format,
        minor: m.schema_minor,
        runId: m.run_id,
        epochIso: m.epoch_iso,
        killed: running,
        warning,
      });
      const verify = verifier(file, { want, listed: `files["${name}"]`, mode: verifyMode, warning });
      tables.push({ table, file, run_id: m.run_id, scan, verify });
    }
    shards.push(tables);
  }
  checkDistinctIds(path, shards.map((tables) => tables.find((t) => t.table === "requests")!.scan));
  const end = await endOpenedRun(dirs, manifests, shards, {
    verify: verifyMode,
    warning,
    hash: sha256File,
    deadlines: options.deadlines,
  });
  return {
    dirs,
    manifests: clipManifests(manifests, end),
    format,
    parts: null,
    shards,
    end,
    shard_set,
    warnings,
    warning,
    // A killed shard's log may end mid-request.
    lenient: (k) => {
      const m = manifests[k]!;
      return isRunnerRun(m) && logEndsEarly(m.result);
    },
  };
}

/** The fields `loadRun` and `scanRun` return alike, with each table's shards concatenated in shard order. */
export interface AssembledRun<T> {
  dir: string;
  manifest: AnyManifest;
  manifests: AnyManifest[];
  format: "csv" | "parquet";
  requests: T;
  attempts: T;
  tools: T;
  /** Null when no shard has a server log. */
  server: T | null;
  /** The phases table (contract 1.5, written by the recorder): empty when no folder holds one. */
  phases: T;
  /** A production recording's parts as read; absent for other runs. */
  parts?: PartRead[];
  end: RunEnd;
  shard_set: ShardSet;
  warnings: string[];
}

/**
 * Joins the per-shard tables of an opened run (eager frames or lazy scans)
 * into the run's tables: one shard's table as is, several concatenated
 * vertically.
 */
export function assembleRun<T extends pl.DataFrame | pl.LazyDataFrame>(
  path: string,
  opened: OpenedRun,
  parts: Record<TableName, T[]>,
): AssembledRun<T> {
  const concat = (t: TableName): T => {
    const p = parts[t];
    // pl.concat has one overload per frame kind: T is always one kind, never a mix.
    return p.length === 1 ? p[0]! : (pl.concat(p as pl.DataFrame[], { how: "vertical" }) as T);
  };
  return {
    dir: path,
    manifest: opened.manifests[0]!,
    manifests: opened.manifests,
    format: opened.format,
    requests: concat("requests"),
    attempts: concat("attempts"),
    tools: concat("tools"),
    server: parts.server.length ? concat("server") : null,
    phases: concat("phases"),
    ...(opened.parts ? { parts: opened.parts } : {}),
    end: opened.end,
    shard_set: opened.shard_set,
    warnings: opened.warnings,
  };
}
