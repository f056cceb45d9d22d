/**
 * Flags, files and defaults shared by the analysis CLIs: the default SLO
 * policy per workload; the declarations (lib/command.ts) of the flags several
 * CLIs take (`--slo`, `--denominator`, `--verify`, `--partial-shards`,
 * `--confidence`, `--headroom`, `--prices`, `--overheads`, `--json`) and of
 * the RUN argument; and the loading of run folders, the SLO policy and price
 * sheets. Every check records its problems on the command's one
 * {@linkcode InputCheck} (lib/cli.ts), so that a CLI names every bad flag and
 * file at once, before any analysis starts (one InputError, exit 2).
 *
 * @module
 */
import { join } from "node:path";
import type { InputCheck } from "../../lib/cli.ts";
import { isImported } from "../run/imported_run.ts";
import { sha256File } from "../run/_open_run.ts";
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { loadRun, type LoadRunOptions } from "../run/load_run.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { withQuality } from "../run/run_quality.ts";
import { loadSloPolicy, policyForRuns } from "../goodput/policy.ts";
import { e2eDeadlines } from "../goodput/e2e_deadlines.ts";
import { decideStopped } from "../run/run_end_decide.ts";
import { loadOverheadSheet, loadPriceSheet, routePrice } from "../cost/price_sheet.ts";
import { DEFAULT_SUPPORT_CONFIDENCE } from "../latency/early_stopping.ts";
import { HEADROOM_CHOICES } from "../knee/limit.ts";
import { defaultSloFile } from "./_flags.ts";

export { DENOMINATOR_FLAG, JSON_FLAG, OPEN_FLAGS, runArgument, SLO_DEFAULT_TEXT, SLO_FLAG } from "./_flags.ts";
export { defaultSloFile };

/**
 * The default policy of a run: for an imported run, the policy given at import (`--slo`, copied into its folder and
 * hashed in run.json); else its workload's policy in data/slo/. Undefined when it has none.
 */
export function runSloFile(run: LoadedRun): string | undefined {
  const m = run.manifest;
  if (isImported(m)) return m.slo ? join(run.dir, m.slo.file) : undefined;
  return defaultSloFile(m.workload.name);
}

/** `--confidence C`: the one-sided confidence of the supported rule (MLPerf LoadGen early stopping). */
export const CONFIDENCE_FLAG = {
  confidence: {
    type: "number",
    arg: "C",
    rule: { min: 0.5, below: 1 },
    default: DEFAULT_SUPPORT_CONFIDENCE,
    description: "the one-sided confidence with which a percentile must be shown below its value to be " +
      '"supported" (early stopping, docs/percentiles.md)',
  },
} as const;

/** `--headroom H`: the production limit = knee × (1 − H). */
export const HEADROOM_FLAG = {
  headroom: {
    type: "number",
    arg: "H",
    rule: { min: 0, below: 1 },
    defaultText: `none: the limit at each headroom of ${
      HEADROOM_CHOICES.map((h) => h * 100).join(", ")
    } % is shown and none is applied`,
    description: "the margin kept below the knee: production limit = knee × (1 − H)",
  },
} as const;

/** `--prices FILE` and `--overheads FILE`. */
export const PRICE_FLAGS = {
  prices: {
    type: "string",
    arg: "FILE",
    defaultText: "none: no cost",
    description: "a price sheet (JSON, schema/prices.ts; e.g. `data/prices/`) pricing every route of the run(s)",
  },
  overheads: {
    type: "string",
    arg: "FILE",
    defaultText: "none: overheads not priced",
    description: "an overheads sheet (retrieval, storage, observability, judge models, human review, operations) in " +
      "the price sheet's currency; needs `--prices`",
  },
} as const;

/** The load options of `--verify` and `--partial-shards` (a missing shard is refused without the flag). */
export function openOptions(v: { verify: "strict" | "warn"; "partial-shards": boolean }): LoadRunOptions {
  return { verify: v.verify, allowPartialShards: v["partial-shards"] };
}

/**
 * Loads every run folder with its quality table (`withQuality`: null when it has none); each one that cannot be
 * loaded, or whose quality table fails its checks, is named (undefined when any failed).
 */
export async function loadRuns(
  check: InputCheck,
  dirs: readonly string[],
  open: LoadRunOptions,
): Promise<LoadedRun[] | undefined> {
  const runs: LoadedRun[] = [];
  let failed = false;
  for (const dir of dirs) {
    const run = await check.load(async () => await withQuality(await loadRun(dir, open)));
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

/**
 * The runs read under their SLO policy: in each stopped run, the requests the
 * stop cut off already past their e2e limit failed (in the window, not
 * censored; `decideStopped`). Undefined when the runs or the policy are.
 */
export async function underPolicy(
  runs: readonly LoadedRun[] | undefined,
  slo: { file: string; policy: SloPolicy } | undefined,
): Promise<LoadedRun[] | undefined> {
  if (!runs || !slo) return undefined;
  const deadlines = e2eDeadlines(slo.policy, slo.file);
  return await Promise.all(runs.map((run) => decideStopped(run, deadlines)));
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
