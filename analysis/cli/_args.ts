/**
 * Flags, files and defaults shared by the analysis CLIs: the default SLO
 * policy per workload; the checks of `--verify`, `--denominator`,
 * `--headroom` and `--confidence`; and the loading of run folders, the SLO
 * policy and price sheets. Every check records its problems on one
 * {@linkcode InputCheck} (lib/cli.ts), so that a CLI names every bad flag
 * and file at once, before any analysis starts (one InputError, exit 2).
 *
 * @module
 */
import { join } from "node:path";
import { InputCheck } from "../../lib/cli.ts";
import { isImported } from "../run/imported_run.ts";
import { sha256File } from "../run/_open_run.ts";
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { loadRun, type LoadRunOptions } from "../run/load_run.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { loadSloPolicy, policyForRuns } from "../goodput/policy.ts";
import { loadOverheadSheet, loadPriceSheet, routePrice } from "../cost/price_sheet.ts";

export { InputCheck, parseFlags, runMain } from "../../lib/cli.ts";

/** Workloads whose SLO policy ships in data/slo/. */
const DEFAULT_POLICIES: Record<string, URL> = {
  "design-v1": new URL("../../data/slo/design-v1.json", import.meta.url),
};

/** The policy file shipped in data/slo/ for a workload, or undefined when none ships. */
export function defaultSloFile(workload: string): string | undefined {
  return DEFAULT_POLICIES[workload]?.pathname;
}

/**
 * The default policy of a run: for an imported run, the policy given at import (`--slo`, copied into its folder and
 * hashed in run.json); else its workload's policy in data/slo/. Undefined when it has none.
 */
export function runSloFile(run: LoadedRun): string | undefined {
  const m = run.manifest;
  if (isImported(m)) return m.slo ? join(run.dir, m.slo.file) : undefined;
  return defaultSloFile(m.workload.name);
}

/** `--verify warn|strict` (undefined when not given). */
export function verifyOption(check: InputCheck, v: string | undefined): "warn" | "strict" | undefined {
  return check.oneOf("verify", v, ["warn", "strict"] as const);
}

/** `--denominator offered|sent|completed` (undefined when not given). */
export function denominatorOption(check: InputCheck, v: string | undefined): SloPolicy["denominator"] | undefined {
  return check.oneOf("denominator", v, ["offered", "sent", "completed"] as const);
}

/** A numeric flag in [lo, hi) (undefined when not given); blank text is refused, not read as 0. */
export function fractionOption(
  check: InputCheck,
  flag: string,
  v: string | undefined,
  lo: number,
  hi: number,
): number | undefined {
  if (v === undefined) return undefined;
  const x = Number(v);
  if (v.trim() !== "" && x >= lo && x < hi) return x;
  check.problems.push(`--${flag}: expected a number in [${lo}, ${hi}), got "${v}"`);
  return undefined;
}

/** `--headroom H`, a fraction in [0, 1) (undefined when not given). */
export function headroomOption(check: InputCheck, v: string | undefined): number | undefined {
  return fractionOption(check, "headroom", v, 0, 1);
}

/**
 * `--confidence C`: the one-sided confidence of the supported rule (MLPerf
 * LoadGen early stopping), in [0.5, 1) (undefined when not given; the
 * analysis default is 0.99).
 */
export function confidenceOption(check: InputCheck, v: string | undefined): number | undefined {
  return fractionOption(check, "confidence", v, 0.5, 1);
}

/** The `--partial-shards` flag, for a CLI's flag table. */
export const PARTIAL_SHARDS_FLAG = { "partial-shards": { type: "boolean", default: false } } as const;

/** The load options of `--verify` and `--partial-shards` (a missing shard is refused without the flag). */
export function openOptions(
  check: InputCheck,
  v: { verify?: string | undefined; "partial-shards"?: boolean | undefined },
): LoadRunOptions {
  return { verify: verifyOption(check, v.verify), allowPartialShards: v["partial-shards"] ?? false };
}

/** The number of RUN folders a CLI takes: exactly `min` when `max` is `min`, else at least `min`. */
export function runFolders(check: InputCheck, positionals: string[], min: number, max = Infinity): string[] {
  const n = positionals.length;
  if (n >= min && n <= max) return positionals;
  const want = min === max
    ? (min === 1 ? "one RUN folder" : `${min} RUN folders`)
    : `at least ${min === 1 ? "one RUN folder" : `${min} RUN folders`}`;
  check.problems.push(`expected ${want}, got ${n}`);
  return positionals.slice(0, max);
}

/** Loads every run folder; each one that cannot be loaded is named (undefined when any failed). */
export async function loadRuns(
  check: InputCheck,
  dirs: readonly string[],
  open: LoadRunOptions,
): Promise<LoadedRun[] | undefined> {
  const runs: LoadedRun[] = [];
  let failed = false;
  for (const dir of dirs) {
    const run = await check.load(() => loadRun(dir, open));
    if (run) runs.push(run);
    else failed = true;
  }
  return failed ? undefined : runs;
}

/**
 * The SLO policy of the runs: `--slo` when given, else the first run's
 * workload default in data/slo/ (`fallback` names what else may supply one,
 * e.g. an audit's claim); read, validated, and every class it names checked
 * against the runs' workloads. Undefined when it could not be had (the
 * problem is recorded) or when no file applies and `fallback` is set.
 */
export async function sloPolicyFor(
  check: InputCheck,
  runs: readonly LoadedRun[] | undefined,
  flag: string | undefined,
  fallback?: string,
): Promise<{ file: string; policy: SloPolicy } | undefined> {
  let file = flag;
  if (file === undefined) {
    const first = runs?.[0];
    if (!first) return undefined; // the run's problem is named; its workload is unknown.
    file = runSloFile(first);
    if (file === undefined) {
      if (fallback === undefined) {
        check.problems.push(
          isImported(first.manifest)
            ? `an SLO policy is required: run ${first.manifest.run_id} was imported without --slo; pass --slo FILE`
            : `an SLO policy is required: workload "${first.manifest.workload.name}" has no default policy in data/slo/; pass --slo FILE`,
        );
      }
      return undefined;
    }
    const m = first.manifest;
    // The policy copied in at import is verified like the log: by its sha256 in run.json.
    if (isImported(m) && m.slo) {
      const got = await sha256File(file);
      if (got !== m.slo.sha256) {
        check.problems.push(
          `${file}: sha256 ${got} does not match run.json slo.sha256 ${m.slo.sha256}: the policy was changed`,
        );
        return undefined;
      }
    }
  }
  const policy = await check.load(() => loadSloPolicy(file));
  if (!policy) return undefined;
  if (runs?.length) {
    const ok = await check.load(() => policyForRuns(policy, runs, file));
    if (!ok) return undefined;
  }
  return { file, policy };
}

/** `--prices` and `--overheads` (the overheads need the prices); null when not given, undefined when bad. */
export async function priceSheets(
  check: InputCheck,
  v: { prices?: string | undefined; overheads?: string | undefined },
): Promise<{ prices: PriceSheet | null | undefined; overheads: OverheadSheet | null | undefined }> {
  check.require(
    v.overheads !== undefined && v.prices === undefined,
    `--overheads ${v.overheads}: needs --prices FILE (the overheads price around a price sheet)`,
  );
  const prices = v.prices === undefined ? null : await check.load(() => loadPriceSheet(v.prices!));
  const overheads = v.overheads === undefined ? null : await check.load(() => loadOverheadSheet(v.overheads!));
  if (prices && overheads && overheads.currency !== prices.currency) {
    check.problems.push(`${v.overheads}: currency ${overheads.currency} differs from ${v.prices}'s ${prices.currency}`);
  }
  return { prices, overheads };
}

/** The price sheet must price every route the runs' attempts used: else a problem naming the file and each route. */
export function checkSheetRoutes(
  check: InputCheck,
  runs: readonly LoadedRun[] | undefined,
  file: string,
  sheet: PriceSheet | null | undefined,
): void {
  if (!runs || !sheet) return;
  const routes = new Set(runs.flatMap((r) => r.attempts.getColumn("route").unique().toArray() as string[]));
  for (const route of [...routes].sort()) {
    try {
      routePrice(sheet, route);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      check.problems.push(`${file}: routes: ${e.message}`);
    }
  }
}
