/**
 * What every command says before any number: the run is incomplete (and how
 * it ended), the client was the limit (the run, a stage, a load level), or no
 * capacity can be derived at all.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { CLIENT_LIMIT_RULE, CUT_LEVEL_RULE, type ExcludedLevel, type StageClientLimit } from "./client_limit.ts";
import { type LatencyFlips, latencyFlips, type RunClientLimit, runClientLimit } from "./run_client_limit.ts";
import { flipsText } from "../../lib/client_limit_rule.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import type { GoodputResult } from "../goodput/goodput.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isRunnerRun } from "../run/imported_run.ts";
import { isProduction, PRODUCTION_CLIENT_RULE, runSourceCaveats } from "../run/production_run.ts";
import { type ResolvedWindow, runWindow } from "../goodput/policy.ts";
import type { RunEnd } from "../run/run_end.ts";
import type { Level } from "./repeats.ts";

/** The opening of the knee's verdict when nothing can be derived. */
export const NO_CAPACITY = "no capacity can be derived from this run";

/** The verdicts of one run (analyze, ledger, report), printed first and carried in the JSON. */
export interface RunVerdicts {
  /**
   * The lines, in order: where the run came from (an imported run's source and lacks, a production recording's
   * meaning: `source`), how the run ended, then nothing accepted, then the client's limits.
   */
  lines: string[];
  /** The run's source caveats (`runSourceCaveats`: imported or production), the first of `lines`; empty for a runner's run. */
  source: string[];
  run_end: RunEnd;
  /** Null unless the window offered requests and accepted none. */
  no_capacity: string | null;
  client: {
    /**
     * The run re-judged from its log by {@linkcode CLIENT_LIMIT_RULE} over the window, (c) under the policy when one is
     * given (null: a production recording, whose client is the app).
     */
    run_limited: boolean | null;
    run_reason: string | null;
    /**
     * run.json result.client_limited as the runner recorded it, true when any shard's is (null: a killed run has no
     * final verdict; an import or a recording has none). Older runs were judged by a fixed 5 ms p99 bar.
     */
    recorded_limited: boolean | null;
    recorded_reason: string | null;
    /** One short line when run.json flagged the run and the re-judged verdict does not; null otherwise. */
    note: string | null;
    /** The window's send lag as a figure (the highest percentile its n supports, and the max). */
    lag_figure: string | null;
    /** (c): requests late only by their own send lag, under the policy; null without one. */
    flips: LatencyFlips | null;
    rule: string;
    /** Every stage of the window that offered requests, with its verdict. */
    stages: StageClientLimit[];
  };
}

const rps = (x: number) => `${sig(x)} req/s`;

/**
 * The runner's client verdict over every shard of the run: limited when any shard's runner was, with each limited
 * shard's reason (a sharded run's shards ran in separate processes, each judging its own client).
 */
function runnerLimit(run: LoadedRun): { limited: boolean; reason: string | null } {
  const ms = run.manifests.filter(isRunnerRun);
  const limited = ms.filter((m) => m.result.client_limited);
  if (!limited.length) return { limited: false, reason: null };
  if (ms.length === 1) return { limited: true, reason: limited[0]!.result.client_limit_reason };
  const each = limited.map((m) =>
    `shard ${m.plan.shard.index} of ${m.plan.shard.count}: ${m.result.client_limit_reason ?? "no reason given"}`
  );
  return { limited: true, reason: `${limited.length} of ${ms.length} shards: ${each.join("; ")}` };
}

/** The re-judged client verdict as one line (null when the rule did not fire): the detail is in the JSON and docs. */
function clientVerdictLine(judged: RunClientLimit | null, where: string): string | null {
  return judged?.limited ? `CLIENT-LIMITED RUN${where}: ${judged.reason}` : null;
}

/**
 * One short line when run.json flagged the run and the log does not uphold it (an older run's 5 ms bar); null
 * otherwise. The other way round needs no note: the runner has no SLO policy, so (c) is the analysis's alone, and the
 * CLIENT-LIMITED line says why.
 */
function recordedNote(recorded: boolean | null, judged: RunClientLimit | null): string | null {
  if (!recorded || judged === null || judged.limited) return null;
  return `client: run.json's client-limited flag (the runner's rule then) is not upheld by the log: ${judged.lag_figure}`;
}

/**
 * The verdicts of a run over a window: the incomplete-run headline, "no
 * capacity" when the window accepted nothing (with `overall`), and the client
 * verdict re-judged from the log ({@linkcode CLIENT_LIMIT_RULE}; its clause (c)
 * only with `policy`, the SLO policy in use).
 */
export function runVerdicts(
  run: LoadedRun,
  window: ResolvedWindow,
  options: { overall?: Pick<GoodputResult["overall"], "offered" | "accepted">; policy?: SloPolicy } = {},
): RunVerdicts {
  const judged = runClientLimit(run, window, options.policy ?? null);
  // An imported run's source and what it lacks, or what a recording's counts mean, come first: every number below is
  // conditional on them.
  const source = runSourceCaveats(run.manifest);
  const lines: string[] = [...source];
  if (run.end.headline) lines.push(run.end.headline);
  const o = options.overall;
  const no_capacity = o && o.offered > 0 && o.accepted === 0
    ? `${NO_CAPACITY}: no request in the window was accepted (0 of ${o.offered} offered)`
    : null;
  if (no_capacity) lines.push(`NO CAPACITY: ${no_capacity}`);
  const client = clientVerdictLine(judged, "");
  if (client) lines.push(client);
  const m = run.manifest;
  // A killed run (any shard of it) has no final verdict of its own; an imported run's tool records none; a recording
  // has no load generator.
  const final = run.manifests.every((x) => isRunnerRun(x) && x.result.status !== "running");
  const limit = runnerLimit(run);
  const recorded = final ? limit.limited : null;
  const note = recordedNote(recorded, judged);
  if (note) lines.push(note);
  return {
    lines,
    source,
    run_end: run.end,
    no_capacity,
    client: {
      run_limited: judged?.limited ?? null,
      run_reason: judged?.reason ?? null,
      recorded_limited: recorded,
      recorded_reason: final ? limit.reason : null,
      note,
      lag_figure: judged?.lag_figure ?? null,
      flips: judged?.flips ?? null,
      rule: isProduction(m) ? PRODUCTION_CLIENT_RULE : CLIENT_LIMIT_RULE,
      stages: judged?.stages ?? [],
    },
  };
}

/**
 * The knee's verdict when nothing can be derived: every level accepted
 * nothing, or every level was excluded. Null when a capacity can be read.
 */
export function noCapacity(tested: Level[], excluded: ExcludedLevel[]): string | null {
  if (!tested.length) {
    return `${NO_CAPACITY}: every load level is excluded from the knee (client-limited or cut by the end of the run)`;
  }
  if (tested.every((l) => l.pooled.accepted === 0)) {
    const offered = tested.reduce((s, l) => s + l.pooled.offered, 0);
    return `${NO_CAPACITY}: no request was accepted at any load level (0 of ${offered} offered over ${tested.length} ` +
      `level${tested.length > 1 ? "s" : ""}${excluded.length ? ", excluded levels not counted" : ""})`;
  }
  return null;
}

/**
 * The knee's first lines: imported runs' caveats and production recordings' meaning (with how their levels are
 * observed, not planned), incomplete runs, no capacity, client-limited runs (each re-judged over its policy window,
 * (c) under `policy` when given), excluded levels.
 */
export function kneeVerdicts(
  runs: LoadedRun[],
  excluded: ExcludedLevel[],
  none: string | null,
  policy?: SloPolicy,
): string[] {
  const several = runs.length > 1;
  const lines: string[] = runs.flatMap((r) =>
    [...runSourceCaveats(r.manifest), ...(isProduction(r.manifest) ? [OBSERVED_LEVELS_RULE] : [])]
      .map((c) => (several ? `${r.dir}: ${c}` : c))
  );
  for (const r of runs) if (r.end.headline) lines.push(several ? `${r.dir}: ${r.end.headline}` : r.end.headline);
  if (none) lines.push(`NO CAPACITY: ${none}`);
  for (const r of runs) {
    // The levels carry (a) and (b) below; the run's line is (c), the requests late only by their own send lag.
    if (!policy || isProduction(r.manifest)) continue;
    const flipped = flipsText(latencyFlips(r, policy, runWindow(r, policy.window)));
    if (flipped) lines.push(`CLIENT-LIMITED RUN${several ? ` (${r.dir})` : ""}: ${flipped}`);
  }
  const of = (reason: ExcludedLevel["reasons"][number]) => excluded.filter((e) => e.reasons.includes(reason));
  const client = of("client_limited"), cut = of("cut");
  const list = (es: ExcludedLevel[]) => es.map((e) => `${rps(e.planned_rps)} planned (${e.why})`).join("; ");
  if (client.length) {
    lines.push(`CLIENT-LIMITED LEVEL${client.length > 1 ? "S" : ""} excluded from the knee: ${list(client)}`);
  }
  const onlyCut = cut.filter((e) => !e.reasons.includes("client_limited"));
  if (onlyCut.length) {
    lines.push(
      `LEVEL${onlyCut.length > 1 ? "S" : ""} CUT BY THE END OF THE RUN excluded from the knee: ${list(onlyCut)}`,
    );
  }
  return lines;
}

/** How the knee reads a production recording's levels, stated first in its verdicts and in the docs. */
export const OBSERVED_LEVELS_RULE =
  "OBSERVED LOAD LEVELS (knee over daily load): the levels of a production recording are all its stage windows (a " +
  'recording has no warm-up or drain) at the rates OBSERVED in them (sampled user actions / window seconds), not planned rates: every "planned" rate of ' +
  "this knee is a window's observed rate; the users, not a plan, chose the tested range, and a window with no " +
  "action is skipped";

/** The rules of the knee's exclusions and verdicts, for its disclosure. */
export const KNEE_VERDICT_RULES = {
  client_limited_level: CLIENT_LIMIT_RULE,
  cut_level: CUT_LEVEL_RULE,
  excluded: "an excluded level is in neither the departures, the baseline nor the Kneedle curve; it stays listed " +
    "with its reasons",
  no_capacity: `"${NO_CAPACITY}" when no tested level accepted any request, or every level is excluded: then ` +
    "there is no knee and no limit (never a lower bound)",
};
