import { InputError } from "../schema/errors.ts";
import type {
  PlanSpecParsed,
  RequestRow,
  RunManifest,
  ScheduledRequest,
  Stage,
  SweepStoppedBy,
} from "../schema/mod.ts";
import type { Checkpoint, DispatchOptions, DispatchResult } from "./dispatch.ts";

/** What run.json says about how the runner judged a sweep step. */
export const STOP_RULE_BASIS = "the runner's own provisional verdict, not the analysis: a request counts as accepted " +
  "when its outcome is ok, every gate it evaluated is true and it completed within its class deadline_ms " +
  "(class_defaults.json); rejected = outcome rejected (429 after retries); both are shares of the requests " +
  "scheduled in the step, those still in flight when the step's drain ends counting as not accepted. The analysis " +
  "recomputes acceptance under its SLO policy.";

/**
 * The runner's provisional acceptance of a finished request: outcome ok,
 * no evaluated gate false (null = not evaluated, ignored), and done within
 * `deadlineMs` of its scheduled time when a deadline is known.
 */
export function provisionallyAccepted(row: RequestRow, deadlineMs: number | null): boolean {
  if (row.outcome !== "ok") return false;
  const gates = [row.output_valid, row.schema_ok, row.quality_ok, row.safety_ok, row.auth_ok];
  if (gates.some((g) => g === false)) return false;
  if (deadlineMs === null) return true;
  return row.completed_ms !== null && row.completed_ms - row.scheduled_ms <= deadlineMs;
}

interface StepTally {
  stage: Stage;
  /** End of the step's drain (or of the step, without a drain): when the rule is judged. */
  judgeAtMs: number;
  offered: number;
  finished: number;
  accepted: number;
  rejected: number;
}

type SweepSpec = PlanSpecParsed["arrivals"] & { process: "sweep" };

/**
 * The stop rule of a sweep run. The dispatcher asks it at the end of every
 * step's drain (warm-up steps excepted) through {@linkcode withStopRule};
 * when acceptance is below `stop.acceptance_below` or rejection above
 * `stop.rejection_above`, the later steps are withheld. {@linkcode conclude}
 * then trims run.json `stages` to the steps that ran and records
 * `result.stopped_by`.
 */
export class SweepStopRule {
  readonly #spec: SweepSpec;
  readonly #stages: readonly Stage[];
  readonly #deadlineMs: (cls: string) => number | null;
  readonly #steps = new Map<string, StepTally>();
  #stopped: SweepStoppedBy | null = null;

  constructor(
    spec: SweepSpec,
    stages: readonly Stage[],
    entries: readonly ScheduledRequest[],
    deadlineMs: (cls: string) => number | null,
  ) {
    this.#spec = spec;
    this.#stages = stages;
    this.#deadlineMs = deadlineMs;
    stages.forEach((stage, i) => {
      if (stage.kind === "drain") return;
      const next = stages[i + 1];
      const judgeAtMs = next?.kind === "drain" ? next.end_ms : stage.end_ms;
      this.#steps.set(stage.name, { stage, judgeAtMs, offered: 0, finished: 0, accepted: 0, rejected: 0 });
    });
    for (const e of entries) {
      const t = this.#steps.get(e.stage);
      if (t) t.offered++;
    }
  }

  /** Counts a request that has a row (finished, or never started). */
  observe(row: RequestRow): void {
    const t = this.#steps.get(row.stage);
    if (!t) return;
    t.finished++;
    if (provisionallyAccepted(row, this.#deadlineMs(row.class))) t.accepted++;
    if (row.outcome === "rejected") t.rejected++;
  }

  /** Counts a request the dispatcher did not start (its not_sent/client_shed row is written elsewhere). */
  skipped(entry: ScheduledRequest): void {
    const t = this.#steps.get(entry.stage);
    if (t) t.finished++;
  }

  /** One checkpoint per steady step with a rule to judge, at the end of its drain. */
  checkpoints(): Checkpoint[] {
    const { acceptance_below: floor, rejection_above: ceiling } = this.#spec.stop;
    if (floor === undefined && ceiling === undefined) return [];
    return [...this.#steps.values()].filter((t) => t.stage.kind !== "warmup").map((t) => ({
      atMs: t.judgeAtMs,
      stop: () => this.#judge(t),
    }));
  }

  #judge(t: StepTally): boolean {
    if (t.offered === 0) return false;
    const { acceptance_below: floor, rejection_above: ceiling } = this.#spec.stop;
    const base = { step: t.stage.name, offered: t.offered, in_flight: t.offered - t.finished, basis: STOP_RULE_BASIS };
    const acceptance = t.accepted / t.offered;
    const rejection = t.rejected / t.offered;
    if (floor !== undefined && acceptance < floor) {
      this.#stopped = { rule: "acceptance_below", value: acceptance, threshold: floor, ...base };
    } else if (ceiling !== undefined && rejection > ceiling) {
      this.#stopped = { rule: "rejection_above", value: rejection, threshold: ceiling, ...base };
    }
    return this.#stopped !== null;
  }

  /**
   * After dispatch: the entries that were offered (a prefix of `entries`).
   * Sets run.json `stages` to the stages that began before the cut, the
   * offered count, and `result.stopped_by` (null when `interrupted`).
   */
  conclude(
    manifest: RunManifest,
    entries: ScheduledRequest[],
    result: DispatchResult,
    interrupted: boolean,
  ): ScheduledRequest[] {
    const cut = result.withheldFromMs;
    if (cut !== null) {
      manifest.stages = this.#stages.filter((s) => s.start_ms < cut);
      manifest.plan.scheduled_requests = result.offered;
    }
    manifest.result.stopped_by = interrupted ? null : this.#stopped ?? this.#ranToMax();
    return cut === null ? entries : entries.slice(0, result.offered);
  }

  #ranToMax(): SweepStoppedBy {
    const last = [...this.#steps.values()].at(-1);
    if (!last) throw new Error("a sweep has at least one step");
    return {
      rule: "max_rps",
      step: last.stage.name,
      value: last.stage.offered_rps,
      threshold: this.#spec.max_rps,
      offered: last.offered,
      in_flight: last.offered - last.finished,
      basis: STOP_RULE_BASIS,
    };
  }
}

/**
 * The stop rule of a sweep plan, or null for any other plan. A sweep with a
 * stop rule needs one runner process: shards would each judge a slice of
 * the traffic and could stop at different steps ({@linkcode InputError}).
 */
export function sweepStopRule(
  spec: PlanSpecParsed,
  built: { stages: readonly Stage[]; entries: readonly ScheduledRequest[]; shard: { count: number } },
  deadlineMs: (cls: string) => number | null,
  planFile: string,
): SweepStopRule | null {
  const a = spec.arrivals;
  if (a.process !== "sweep") return null;
  const judged = a.stop.acceptance_below !== undefined || a.stop.rejection_above !== undefined;
  if (judged && built.shard.count > 1) {
    throw new InputError(
      `${planFile}: arrivals.stop: a sweep's stop rule is judged by one runner process; with --shard ` +
        `${built.shard.count} processes each would judge its own slice and could stop at another step ` +
        `(remove arrivals.stop to shard the full sweep)`,
    );
  }
  return new SweepStopRule(a, built.stages, built.entries, deadlineMs);
}

/** `o` with the rule's checkpoints and every row it writes counted by the rule (`o` itself when there is none). */
export function withStopRule(rule: SweepStopRule | null, o: DispatchOptions): DispatchOptions {
  if (!rule) return o;
  return {
    ...o,
    checkpoints: rule.checkpoints(),
    done: (row) => {
      rule.observe(row);
      o.done?.(row);
    },
    skip: (entry, outcome, lag, reason) => {
      rule.skipped(entry);
      o.skip(entry, outcome, lag, reason);
    },
  };
}
