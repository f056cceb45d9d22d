import { sig } from "../../lib/number_format.ts";
import type pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import type { SelfHostedPrice } from "../../schema/prices.ts";
import { replicaTime, type StateSeconds, type TimeSplit } from "./gpu_time.ts";
import type { LineBook } from "./price_lines.ts";

/** How a self-hosted target's time was charged: the ledger's `gpu_time` entries. */
export interface GpuTimeSummary {
  route: string;
  /** The sheet's rule: the whole run's time, or the window's only. */
  gpu_time: SelfHostedPrice["gpu_time"];
  /** Where the replica counts come from. */
  basis: "server timeline" | "fixed_replicas";
  run_end_ms: number;
  run_end_from: string;
  window_seconds: number;
  measured_seconds: number;
  outside_seconds: number;
  /** Share of the outside time allocated to this window (window_seconds / measured_seconds). */
  share: number;
  outside_parts: string[];
  /** Replica-seconds from the timeline (null with fixed_replicas). */
  replica_seconds: { window: StateSeconds; outside: StateSeconds } | null;
}

const STATES: [keyof StateSeconds, string][] = [
  ["busy", "min(running, replicas): serving, a sequence running"],
  ["idle", "max(replicas − running, 0): serving, no sequence running"],
  ["warming", "replicas_warming: provisioning or loading"],
];

/** Seconds and shares in the GPU-time details: 6 significant digits. */
const DIGITS = 6;

/**
 * Prices a self-hosted target's replica time: GPU time from the server
 * timeline (busy, idle and warming replicas), or `fixed_replicas` when there
 * is none, spare replicas for redundancy, and the deployment's operations,
 * each spread over requests by `weights` (their tokens on the target).
 *
 * With `gpu_time: "run"` the target is paid from the run's start to its end:
 * the window's rows are charged to it, and the time outside every measured
 * stage (warm-up, drain, pauses, after the last stage) is charged at the
 * window's `share` of it. With `"window"` only the window's rows are charged
 * and the outside share is listed at price 0. Warnings note a timeline that
 * covers less than the run.
 */
export function priceSelfHosted(
  book: LineBook,
  target: { label: string; server: pl.DataFrame | null; match: (label: string) => boolean; without?: string },
  price: SelfHostedPrice,
  split: TimeSplit,
  weights: Float64Array,
  source: string,
  warnings: string[],
): GpuTimeSummary {
  const route = target.label;
  const charged = price.gpu_time === "run";
  const per = `${price.gpus_per_replica} × ${price.gpu_type} per replica`;
  const gpuLine = (detail: string, replicaSeconds: number, unitPrice = price.gpu_hour) =>
    book.addSpread(
      { item: "provider_or_gpu", route, detail, unit: "GPU-hour", unit_price: unitPrice, source },
      replicaSeconds / 3600 * price.gpus_per_replica,
      weights,
    );
  const share = sig(split.share, DIGITS);
  const outsideTerms = charged
    ? `share ${share} (window ${sig(split.window_seconds, DIGITS)} s of ${
      sig(split.measured_seconds, DIGITS)
    } measured s)`
    : `share ${share}, not charged (gpu_time: window)`;
  const runSeconds = split.run.end_ms / 1000;
  const time = target.server ? replicaTime(target.server, split, target.match) : null;
  const summary: GpuTimeSummary = {
    route,
    gpu_time: price.gpu_time,
    basis: "server timeline",
    run_end_ms: split.run.end_ms,
    run_end_from: split.run.end_from,
    window_seconds: split.window_seconds,
    measured_seconds: split.measured_seconds,
    outside_seconds: split.outside_seconds,
    share: split.share,
    outside_parts: split.outside_parts,
    replica_seconds: null,
  };
  if (time && time.rows > 0) {
    if (time.covered_seconds < 0.95 * runSeconds) {
      warnings.push(
        `route ${route}: the server timeline covers ${time.covered_seconds.toFixed(1)} s of the run's ${
          sig(runSeconds, DIGITS)
        } s; GPU time outside it is not charged`,
      );
    }
    summary.replica_seconds = { window: time.window, outside: time.outside };
    for (const [state, what] of STATES) {
      gpuLine(`GPU time in the window, ${state} (${what}), ${per}`, time.window[state]);
    }
    for (const [state, what] of STATES) {
      const q = time.outside[state] * split.share;
      if (q > 0) {
        gpuLine(
          `GPU time outside every measured stage, ${state} (${what}), ${outsideTerms}, ${per}`,
          q,
          charged ? price.gpu_hour : 0,
        );
      }
    }
  } else if (price.fixed_replicas !== null) {
    summary.basis = "fixed_replicas";
    const none = target.without ?? "no server timeline rows";
    warnings.push(
      `route ${route}: ${none}; priced at fixed_replicas = ${price.fixed_replicas} over the ${
        charged ? "run" : "window"
      }`,
    );
    const fixed = `fixed_replicas ${price.fixed_replicas} (${
      target.without ?? "no server timeline"
    }: busy and idle cannot be told apart)`;
    gpuLine(`GPU time in the window: ${fixed} × window seconds, ${per}`, price.fixed_replicas * split.window_seconds);
    const q = price.fixed_replicas * split.outside_seconds * split.share;
    if (q > 0) {
      gpuLine(
        `GPU time outside every measured stage: ${fixed}, ${outsideTerms}, ${per}`,
        q,
        charged ? price.gpu_hour : 0,
      );
    }
  } else {
    throw new InputError(
      `route ${route} is priced self-hosted but ${
        target.without ?? "the run has no server timeline rows for it"
      }; set fixed_replicas in the price sheet`,
    );
  }
  // Spares and operations run as long as the deployment: over the window, plus the outside share under "run".
  const paidSeconds = split.window_seconds + (charged ? split.outside_seconds * split.share : 0);
  const over = charged
    ? `(window ${sig(split.window_seconds, DIGITS)} s + share ${share} of ${
      sig(split.outside_seconds, DIGITS)
    } s outside it)`
    : `window hours (gpu_time: window)`;
  if (price.redundancy_replicas > 0) {
    gpuLine(
      `redundancy: ${price.redundancy_replicas} spare replicas (idle by design) × ${over}, ${per}`,
      price.redundancy_replicas * paidSeconds,
    );
  }
  if (price.operations_per_hour > 0) {
    book.addSpread(
      {
        item: "allocated_operations",
        route,
        detail: `deployment operations × ${over}`,
        unit: "hour",
        unit_price: price.operations_per_hour,
        source,
      },
      paidSeconds / 3600,
      weights,
    );
  }
  return summary;
}
