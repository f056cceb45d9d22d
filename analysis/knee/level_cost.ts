/**
 * The knee's cost signal: the cost ledger of a level's stages, priced by
 * {@linkcode ledger} itself so the knee and `deno task ledger` never
 * disagree about what a task cost.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { ledger } from "../cost/ledger.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { SignalSample } from "./signals.ts";
import { policyForRun } from "../goodput/policy.ts";

/** The sheets that price the knee's levels. */
export interface LevelPricing {
  prices: PriceSheet;
  /** Retrieval, tools, storage, observability, review and operations. @default null (not priced) */
  overheads?: OverheadSheet | null;
}

/** The ledger's overall figures for one set of stages of one run. */
export interface StagesCost {
  total: number;
  offered: number;
  accepted: number;
}

/** Why `cost_per_accepted` has no statistical test: printed as its guard's evidence. */
export const COST_GUARD_NOTE = "tolerance only: no bootstrap of the full ledger, because its fixed costs (GPU-hours, " +
  "spare replicas, operations over the level's seconds) are paid once per level, not drawn per request, so " +
  "resampling requests would misstate their uncertainty; acceptance_rate (Fisher) and tokens_per_accepted " +
  "(bootstrap) carry the sampling tests";

/**
 * Prices sets of one run's stages with {@linkcode ledger}, under the SLO
 * policy with its window replaced by exactly those stages: requests
 * scheduled in them, their attempts and tool calls, and the server rows
 * (GPU time) and window hours (spare replicas, operations) of those stages,
 * plus — under a self-hosted sheet's `gpu_time: "run"` — their share of the
 * run's time outside every level (warm-up, recovery, drains, after the last stage),
 * allocated to the levels (the steady and burst stages) in proportion to
 * their seconds, so the levels' GPU time adds up to the run's. Results are
 * kept, so a level priced twice (alone and pooled) costs one ledger.
 */
export class LevelCoster {
  /** The ledger's warnings, once each, prefixed with the run folder. */
  readonly warnings: string[] = [];
  readonly #memo = new Map<string, StagesCost>();
  readonly #run: LoadedRun;
  readonly #policy: SloPolicy;
  readonly #pricing: LevelPricing;
  /** The window of every level: the time outside it is shared by the levels. */
  readonly #levels: SloPolicy["window"];

  constructor(run: LoadedRun, policy: SloPolicy, pricing: LevelPricing) {
    policy = policyForRun(policy, run, "LevelCoster policy");
    // The load levels, as analysis/knee/levels.ts takes them: every steady and burst stage (not warm-up, recovery, drain).
    const levels = run.manifest.stages.filter((s) => s.kind === "steady" || s.kind === "burst").map((s) => s.name);
    this.#levels = { include_stages: levels, exclude_stage_kinds: [] };
    this.#run = run;
    this.#policy = policy;
    this.#pricing = pricing;
  }

  /** The ledger's total, offered and accepted over these stages of the run. */
  cost(stages: string[]): StagesCost {
    const key = JSON.stringify([...stages].sort());
    const known = this.#memo.get(key);
    if (known) return known;
    const policy: SloPolicy = { ...this.#policy, window: { include_stages: stages, exclude_stage_kinds: [] } };
    const r = ledger(this.#run, policy, this.#pricing.prices, {
      overheads: this.#pricing.overheads ?? null,
      measured: this.#levels,
    });
    for (const w of r.pricing.warnings) {
      const line = `${this.#run.dir}: cost: ${w}`;
      if (!this.warnings.includes(line)) this.warnings.push(line);
    }
    const out = { total: r.overall.total, offered: r.overall.offered, accepted: r.overall.accepted };
    this.#memo.set(key, out);
    return out;
  }
}

/**
 * `cost_per_accepted` of a point: Σ ledger totals / Σ accepted over its
 * runs' stage sets (a level's repeats pooled as one larger sample), checked
 * against the point's own counts. Tolerance only (see {@linkcode COST_GUARD_NOTE}).
 */
export function costSample(
  parts: { coster: LevelCoster; dir: string; stages: string[] }[],
  counts: { offered: number; accepted: number },
): SignalSample {
  let total = 0, offered = 0, accepted = 0;
  for (const p of parts) {
    const c = p.coster.cost(p.stages);
    total += c.total;
    offered += c.offered;
    accepted += c.accepted;
  }
  if (offered !== counts.offered || accepted !== counts.accepted) {
    const where = parts.map((p) => `${p.dir} stages ${p.stages.join(", ")}`).join("; ");
    throw new InputError(
      `${where}: the ledger counts ${accepted} accepted of ${offered} offered (requests scheduled in the stages' ` +
        `time), the level ${counts.accepted} of ${counts.offered} (requests labelled with the stages): the log's ` +
        "stage column disagrees with scheduled_ms and run.json stages",
    );
  }
  return { test: "none", value: accepted ? total / accepted : null, n: accepted, note: COST_GUARD_NOTE };
}
