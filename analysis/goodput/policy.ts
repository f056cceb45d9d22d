import { InputError } from "../../schema/errors.ts";
import { describeIssues } from "../../schema/load.ts";
import { readInputText } from "../../schema/read_input.ts";
import type { AnyManifest } from "../../schema/imported_manifest.ts";
import type { Stage } from "../../schema/plan.ts";
import { type ClassSlo, type ModeSlo, SloPolicy } from "../../schema/slo.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { clipStages } from "../run/run_end_rule.ts";
import type { ScannedRun } from "../run/scanned_run.ts";

/**
 * Validates an SLO policy, from a file or passed in code, against the
 * contract's schema (`schema/slo.ts`, strict: a misspelt key is refused;
 * defaults filled, e.g. a class without `gates` gets the default gates).
 * The one validation every policy goes through: {@linkcode loadSloPolicy}
 * and every analysis entry that takes a policy call it. Throws an
 * {@linkcode InputError} naming `source` and every bad field at once.
 *
 * @example A misspelt key and a missing `default` are named
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSloPolicy } from "./policy.ts";
 * assert.throws(
 *   () => parseSloPolicy({ classes: { qa: { e2e: 100 } } }, "my policy"),
 *   (e: Error) => /my policy: classes\.qa: Unrecognized key: "e2e"/.test(e.message) && /my policy: default/.test(e.message),
 * );
 * assert.deepEqual(parseSloPolicy({ default: { e2e_ms: 10000 } }, "minimal").default.gates,
 *   ["output_valid", "quality_ok", "safety_ok", "auth_ok"]);
 * ```
 */
export function parseSloPolicy(input: unknown, source: string): SloPolicy {
  const res = SloPolicy.safeParse(input);
  if (!res.success) throw new InputError(`${source}: invalid SLO policy`, describeIssues(source, res.error));
  return res.data;
}

/** The classes a run's workload defines, and where they were read. */
export interface WorkloadClasses {
  classes: string[];
  /** `run.json workload.classes` (contract 1.1), or the requests log (a 1.0 log records no workload classes). */
  from: string;
}

/**
 * The classes of a run's workload: run.json `workload.classes` (1.1); a log
 * without them (1.0) gives the classes present in its requests log.
 */
export function workloadClasses(run: LoadedRun | ScannedRun): WorkloadClasses {
  const declared = run.manifest.workload.classes;
  if (declared) return { classes: [...declared].sort(), from: "run.json workload.classes" };
  const requests = run.requests as LoadedRun["requests"] | ScannedRun["requests"];
  const column = "collectSync" in requests
    ? requests.select("class").unique().collectSync().getColumn("class")
    : requests.getColumn("class").unique();
  return presentClasses(column.toArray() as string[], run.manifest);
}

/** {@linkcode WorkloadClasses} of a log without declared classes (1.0): the classes found in its requests log. */
export function presentClasses(classes: readonly string[], manifest: AnyManifest): WorkloadClasses {
  return {
    classes: [...classes].sort(),
    from: `the classes present in its requests log: run.json records no workload.classes${
      manifest.schema_minor === 0 ? " (contract 1.0)" : ""
    }`,
  };
}

/**
 * The policy an analysis applies to its runs: {@linkcode parseSloPolicy},
 * then every class the policy names must be a class of the runs' workload
 * ({@linkcode workloadClasses}; with several runs, of at least one of them:
 * a comparison may include a single-class run): a class name that matches
 * none would otherwise leave that class silently under the default SLO.
 * `source` names the caller in errors (`goodput() policy`).
 */
export function policyForRuns(input: unknown, runs: readonly (LoadedRun | ScannedRun)[], source: string): SloPolicy {
  const policy = parseSloPolicy(input, source);
  if (!Object.keys(policy.classes).length) return policy;
  return checkPolicyClasses(
    policy,
    runs.map((run) => ({ run_id: run.manifest.run_id, dir: run.dir, workload: workloadClasses(run) })),
    source,
  );
}

/**
 * The check of {@linkcode policyForRuns} on a parsed policy and the runs' workload classes, however they were read:
 * every class the policy names must be a class of at least one run; else an {@linkcode InputError} naming them and
 * each run's classes.
 */
export function checkPolicyClasses(
  policy: SloPolicy,
  runs: readonly { run_id: string; dir: string; workload: WorkloadClasses }[],
  source: string,
): SloPolicy {
  const unknown = Object.keys(policy.classes).filter((c) => !runs.some(({ workload }) => workload.classes.includes(c)));
  if (!unknown.length) return policy;
  const problems = [
    `${source}: classes: ${unknown.join(", ")} not in the workload of ${runs.length === 1 ? "run" : "any run"}`,
    ...runs.map(({ run_id, dir, workload: w }) =>
      `${source}: run ${run_id} (${dir}) has the classes (${w.from}): ${w.classes.join(", ") || "none"}`
    ),
  ];
  throw new InputError(`${source}: SLO policy names classes the workload does not have`, problems);
}

/** {@linkcode policyForRuns} for one run. */
export function policyForRun(input: unknown, run: LoadedRun | ScannedRun, source: string): SloPolicy {
  return policyForRuns(input, [run], source);
}

/**
 * Reads and validates an SLO policy file (JSON, {@linkcode parseSloPolicy}).
 * Errors are {@linkcode InputError}s naming the file and every bad field at once.
 *
 * @example A missing file is an input error naming it
 * ```ts
 * import { loadSloPolicy } from "./policy.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(() => loadSloPolicy("/nonexistent/slo.json"), /\/nonexistent\/slo.json/);
 * ```
 */
export async function loadSloPolicy(file: string): Promise<SloPolicy> {
  // A regular file of at most 64 MiB (schema/read_input.ts): a FIFO or a device is refused before it is opened.
  const text = await readInputText(file, "SLO policy");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: cannot read SLO policy: ${(e as Error).message}`, [], { cause: e });
  }
  return parseSloPolicy(raw, file);
}

/** The SLO of one class: its own entry, else the policy's `default`. */
export function classSlo(policy: SloPolicy, cls: string): ClassSlo {
  return policy.classes[cls] ?? policy.default;
}

/** A measurement window resolved against a run's stages. */
export interface ResolvedWindow {
  /** `stages`: the union of the included stages; `range`: one explicit ms range. */
  kind: "stages" | "range";
  /** Half-open `[start_ms, end_ms)` intervals; a request is in the window when its `scheduled_ms` is in one. */
  intervals: [number, number][];
  /** Names of the included stages (`stages`), or of the stages overlapping the range (`range`). */
  stages: string[];
  /** The window's length: the sum of the included stages' durations, or end − start, in seconds. */
  measurement_seconds: number;
  /** Seconds of each run stage inside the window: the denominator of per-stage goodput. */
  stage_seconds: Record<string, number>;
  /** The rule in words, for the disclosure. */
  description: string;
}

/**
 * Resolves a policy window against run.json `stages`.
 *
 * Stage windows include every stage named in `include_stages` (all stages
 * when absent) minus those whose kind is in `exclude_stage_kinds`. Drain
 * stages have no arrivals; they add to `measurement_seconds` only when
 * included, so exclude `drain` to measure arrival time only. A range window
 * `[start_ms, end_ms)` has length end − start, whatever stages it covers.
 * With `endMs` (an incomplete run's cut, see `RunEnd`), every stage and the
 * range are clipped there ({@linkcode clipStages}): time after the end of
 * the log is never in `measurement_seconds` or `stage_seconds`.
 *
 * @example Warm-up and drain excluded: only the steady stage's 10 s count
 * ```ts
 * import { resolveWindow } from "./policy.ts";
 * import assert from "node:assert/strict";
 * const stages = [
 *   { name: "warm", kind: "warmup" as const, start_ms: 0, end_ms: 5000, offered_rps: 1 },
 *   { name: "peak", kind: "steady" as const, start_ms: 5000, end_ms: 15000, offered_rps: 4 },
 *   { name: "drain", kind: "drain" as const, start_ms: 15000, end_ms: 20000, offered_rps: 0 },
 * ];
 * const w = resolveWindow(stages, { exclude_stage_kinds: ["warmup", "drain"] });
 * assert.equal(w.measurement_seconds, 10);
 * assert.deepEqual(w.intervals, [[5000, 15000]]);
 * ```
 */
export function resolveWindow(
  stages: readonly Pick<Stage, "name" | "kind" | "start_ms" | "end_ms">[],
  window: SloPolicy["window"],
  options: ResolveWindowOptions = {},
): ResolvedWindow {
  const endMs = options.endMs ?? null;
  const cut = endMs === null ? "" : `; the run is incomplete: its window ends at ${endMs} ms and is clipped there`;
  if (endMs !== null) stages = clipStages(stages, endMs);
  if ("start_ms" in window) {
    const { start_ms: a, end_ms: planned } = window;
    if (planned <= a) {
      throw new InputError(`SLO policy: window.end_ms (${planned}) must be after window.start_ms (${a})`);
    }
    const b = endMs === null ? planned : Math.min(planned, endMs);
    if (b <= a) {
      throw new InputError(
        `SLO policy: window [${a}, ${planned}) ms starts at or after the end of the run's window (${endMs} ms: ` +
          "the run is incomplete): nothing in it was measured",
      );
    }
    const stage_seconds: Record<string, number> = {};
    for (const s of stages) {
      const overlap = Math.max(0, Math.min(b, s.end_ms) - Math.max(a, s.start_ms));
      if (overlap > 0) stage_seconds[s.name] = (stage_seconds[s.name] ?? 0) + overlap / 1000;
    }
    return {
      kind: "range",
      intervals: [[a, b]],
      stages: Object.keys(stage_seconds),
      measurement_seconds: (b - a) / 1000,
      stage_seconds,
      description: `scheduled_ms in [${a}, ${b}) ms${
        b < planned ? ` (the policy's range ends at ${planned} ms)` : ""
      }${cut}`,
    };
  }
  const names = new Set(stages.map((s) => s.name));
  const unknown = (window.include_stages ?? []).filter((n) => !names.has(n));
  if (unknown.length) {
    throw new InputError(
      `SLO policy: window.include_stages names stages the run does not have: ${unknown.join(", ")} (run stages: ${
        [...names].join(", ")
      }${endMs === null ? "" : `; stages after the end of the window, ${endMs} ms (an incomplete run), are out`})`,
    );
  }
  const included = stages.filter((s) =>
    (window.include_stages === undefined || window.include_stages.includes(s.name)) &&
    !window.exclude_stage_kinds.includes(s.kind)
  );
  if (!included.length) {
    throw new InputError(
      `SLO policy: the window includes no stage of this run${
        endMs === null ? "" : ` before the end of the window (${endMs} ms: the run is incomplete)`
      }`,
    );
  }
  const stage_seconds: Record<string, number> = {};
  for (const s of included) stage_seconds[s.name] = (stage_seconds[s.name] ?? 0) + (s.end_ms - s.start_ms) / 1000;
  const measurement_seconds = included.reduce((sum, s) => sum + (s.end_ms - s.start_ms), 0) / 1000;
  const rule = [
    window.include_stages ? `stages ${window.include_stages.join(", ")}` : "all stages",
    window.exclude_stage_kinds.length ? `minus kinds ${window.exclude_stage_kinds.join(", ")}` : "",
  ].filter(Boolean).join(" ");
  return {
    kind: "stages",
    intervals: included.map((s) => [s.start_ms, s.end_ms]),
    stages: included.map((s) => s.name),
    measurement_seconds,
    stage_seconds,
    description: `${rule}: ${
      included.map((s) => `${s.name} (${s.kind}, ${s.start_ms}–${s.end_ms} ms)`).join(", ")
    }${cut}`,
  };
}

/** Options of {@linkcode resolveWindow}. */
export interface ResolveWindowOptions {
  /**
   * Where the window ends, for an incomplete run (`RunEnd.cut_ms`): stages
   * and a range are clipped there, and stages after it drop out. @default null
   */
  endMs?: number | null;
}

/**
 * {@linkcode resolveWindow} over a loaded or scanned run: its stages, clipped
 * where its window ends when the run is incomplete (`run.end.cut_ms`).
 */
export function runWindow(
  run: { manifest: AnyManifest; end: { cut_ms: number | null } },
  window: SloPolicy["window"],
): ResolvedWindow {
  return resolveWindow(run.manifest.stages, window, { endMs: run.end.cut_ms });
}

/** The latency metrics an SLO limits. */
export type LimitMetric = "e2e_ms" | "ttft_ms" | "tpot_ms";

function withoutLimit<S extends ClassSlo | ModeSlo>(slo: S, metric: LimitMetric): S {
  const { [metric]: _drop, ...rest } = slo;
  const out = rest as S;
  if ("modes" in out && out.modes) out.modes = withoutModeLimits(out.modes, metric);
  return out;
}

function withoutModeLimits(modes: Record<string, ModeSlo>, metric: LimitMetric): Record<string, ModeSlo> {
  return Object.fromEntries(Object.entries(modes).map(([m, s]) => [m, withoutLimit(s, metric)]));
}

/**
 * The policy without any limit on `metric`: every class's, the default's and
 * every degraded mode's limit on it removed, every other condition kept. An
 * SLO sweep counts the requests this policy accepts at each limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSloPolicy, withoutMetricLimit } from "./policy.ts";
 * const p = parseSloPolicy({ default: { e2e_ms: 5000, ttft_ms: 800 } }, "p");
 * assert.deepEqual(withoutMetricLimit(p, "e2e_ms").default, { ttft_ms: 800, gates: p.default.gates });
 * ```
 */
export function withoutMetricLimit(policy: SloPolicy, metric: LimitMetric): SloPolicy {
  return {
    ...policy,
    classes: Object.fromEntries(Object.entries(policy.classes).map(([c, s]) => [c, withoutLimit(s, metric)])),
    default: withoutLimit(policy.default, metric),
    ...(policy.modes ? { modes: withoutModeLimits(policy.modes, metric) } : {}),
  };
}
