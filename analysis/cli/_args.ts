/**
 * Flags and defaults shared by the analysis CLIs: the default SLO policy per
 * workload, and the checks of `--verify`, `--denominator`, `--headroom` and
 * `--confidence`.
 * Each check throws an `InputError` naming the flag (the CLI exits 2).
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import type { SloPolicy } from "../../schema/slo.ts";

/** Workloads whose SLO policy ships in data/slo/. */
const DEFAULT_POLICIES: Record<string, URL> = {
  "design-v1": new URL("../../data/slo/design-v1.json", import.meta.url),
};

/** The policy file shipped in data/slo/ for a workload, or undefined when none ships. */
export function defaultSloFile(workload: string): string | undefined {
  return DEFAULT_POLICIES[workload]?.pathname;
}

/**
 * The SLO policy file to use for a run: `--slo` when given, else the
 * workload's default in data/slo/.
 *
 * @throws {InputError} when neither exists.
 */
export function resolveSloFile(run: { manifest: RunManifest }, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  const name = run.manifest.workload.name;
  const known = defaultSloFile(name);
  if (known === undefined) {
    throw new InputError(
      `an SLO policy is required: workload "${name}" has no default policy in data/slo/; pass --slo FILE`,
    );
  }
  return known;
}

/** `--verify warn|strict` (undefined when not given). */
export function verifyOption(v: string | undefined): "warn" | "strict" | undefined {
  if (v !== undefined && v !== "warn" && v !== "strict") {
    throw new InputError(`--verify: expected warn or strict, got "${v}"`);
  }
  return v;
}

/** `--denominator offered|sent|completed` (undefined when not given). */
export function denominatorOption(v: string | undefined): SloPolicy["denominator"] | undefined {
  if (v !== undefined && v !== "offered" && v !== "sent" && v !== "completed") {
    throw new InputError(`--denominator: expected offered, sent or completed, got "${v}"`);
  }
  return v;
}

/** A numeric flag in [lo, hi) (undefined when not given); blank text is refused, not read as 0. */
export function fractionOption(flag: string, v: string | undefined, lo: number, hi: number): number | undefined {
  if (v === undefined) return undefined;
  const x = Number(v);
  if (!(v.trim() !== "" && x >= lo && x < hi)) {
    throw new InputError(`--${flag}: expected a number in [${lo}, ${hi}), got "${v}"`);
  }
  return x;
}

/** `--headroom H`, a fraction in [0, 1) (undefined when not given). */
export function headroomOption(v: string | undefined): number | undefined {
  return fractionOption("headroom", v, 0, 1);
}

/**
 * `--confidence C`: the one-sided confidence of the supported rule (MLPerf
 * LoadGen early stopping), in [0.5, 1) (undefined when not given; the
 * analysis default is 0.99).
 */
export function confidenceOption(v: string | undefined): number | undefined {
  return fractionOption("confidence", v, 0.5, 1);
}

/** The `--partial-shards` flag, for a CLI's flag table. */
export const PARTIAL_SHARDS_FLAG = { "partial-shards": { type: "boolean", default: false } } as const;

/** The load options of `--verify` and `--partial-shards` (a missing shard is refused without the flag). */
export function openOptions(
  v: { verify?: string | undefined; "partial-shards"?: boolean | undefined },
): { verify: "warn" | "strict" | undefined; allowPartialShards: boolean } {
  return { verify: verifyOption(v.verify), allowPartialShards: v["partial-shards"] ?? false };
}
