import type pl from "nodejs-polars";
import { InputError } from "../schema/errors.ts";
import type { SelfHostedPrice } from "../schema/prices.ts";
import type { ResolvedWindow } from "./policy.ts";
import type { LineBook } from "./price_lines.ts";

/** Replica time of one target inside the window, from its server timeline. */
export interface ReplicaTime {
  /** Σ (replicas + replicas_warming) × row duration over rows inside the window, in seconds. */
  replica_seconds: number;
  /** Seconds of timeline inside the window (to compare with the window's length). */
  covered_seconds: number;
  rows: number;
}

/**
 * Replica-seconds of the server rows whose `route` label passes `match`
 * (all rows when the table has no route column). A row covers the time
 * since the previous row of its label (the first row: the median gap), so
 * a stalled, longer row counts for its real length; rows are in the window
 * when their `t_ms` is. Idle and warming replicas are paid for.
 */
export function replicaTime(
  server: pl.DataFrame,
  window: ResolvedWindow,
  match: (label: string) => boolean,
): ReplicaTime {
  const t = server.getColumn("t_ms").toArray() as number[];
  const rep = server.getColumn("replicas").toArray() as number[];
  const warm = server.getColumn("replicas_warming").toArray() as number[];
  const labels = server.columns.includes("route") ? server.getColumn("route").toArray() as string[] : null;
  const byLabel = new Map<string, number[]>();
  for (let i = 0; i < t.length; i++) {
    const label = labels ? labels[i]! : "";
    if (labels && !match(label)) continue;
    const list = byLabel.get(label);
    if (list) list.push(i);
    else byLabel.set(label, [i]);
  }
  const inWindow = (ms: number) => window.intervals.some(([a, b]) => ms >= a && ms < b);
  const out: ReplicaTime = { replica_seconds: 0, covered_seconds: 0, rows: 0 };
  for (const idx of byLabel.values()) {
    idx.sort((a, b) => t[a]! - t[b]!);
    const gaps = idx.slice(1).map((r, j) => t[r]! - t[idx[j]!]!).sort((a, b) => a - b);
    const firstGap = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 1000;
    idx.forEach((r, j) => {
      if (!inWindow(t[r]!)) return;
      const seconds = (j === 0 ? firstGap : t[r]! - t[idx[j - 1]!]!) / 1000;
      out.replica_seconds += (rep[r]! + warm[r]!) * seconds;
      out.covered_seconds += seconds;
      out.rows++;
    });
  }
  return out;
}

/**
 * Prices a self-hosted target over the window: GPU time from the server
 * timeline (or `fixed_replicas` when there is none), spare replicas for
 * redundancy, and the deployment's operations, each spread over requests
 * by `weights` (their tokens on the target). Warnings note a timeline that
 * covers less than the window.
 */
export function priceSelfHosted(
  book: LineBook,
  target: { label: string; server: pl.DataFrame | null; match: (label: string) => boolean },
  price: SelfHostedPrice,
  window: ResolvedWindow,
  weights: Float64Array,
  source: string,
  warnings: string[],
): void {
  const route = target.label;
  const hours = window.measurement_seconds / 3600;
  const time = target.server ? replicaTime(target.server, window, target.match) : null;
  const per = `${price.gpus_per_replica} × ${price.gpu_type} per replica`;
  if (time && time.rows > 0) {
    if (time.covered_seconds < 0.95 * window.measurement_seconds) {
      warnings.push(
        `route ${route}: the server timeline covers ${
          time.covered_seconds.toFixed(1)
        } s of the ${window.measurement_seconds} s window; GPU time outside it is not charged`,
      );
    }
    const gpuHours = time.replica_seconds / 3600 * price.gpus_per_replica;
    const detail =
      `GPU time: (replicas + replicas_warming) × row seconds from the server timeline (${time.rows} rows), ${per}`;
    book.addSpread(
      { item: "provider_or_gpu", route, detail, unit: "GPU-hour", unit_price: price.gpu_hour, source },
      gpuHours,
      weights,
    );
  } else if (price.fixed_replicas !== null) {
    warnings.push(
      `route ${route}: no server timeline rows; priced at fixed_replicas = ${price.fixed_replicas} over the window`,
    );
    const detail = `GPU time: fixed_replicas ${price.fixed_replicas} × window hours (no server timeline), ${per}`;
    const gpuHours = price.fixed_replicas * price.gpus_per_replica * hours;
    book.addSpread(
      { item: "provider_or_gpu", route, detail, unit: "GPU-hour", unit_price: price.gpu_hour, source },
      gpuHours,
      weights,
    );
  } else {
    throw new InputError(
      `route ${route} is priced self-hosted but the run has no server timeline rows for it; set fixed_replicas in the price sheet`,
    );
  }
  if (price.redundancy_replicas > 0) {
    const detail = `redundancy: ${price.redundancy_replicas} spare replicas × window hours, ${per}`;
    const gpuHours = price.redundancy_replicas * price.gpus_per_replica * hours;
    book.addSpread(
      { item: "provider_or_gpu", route, detail, unit: "GPU-hour", unit_price: price.gpu_hour, source },
      gpuHours,
      weights,
    );
  }
  if (price.operations_per_hour > 0) {
    const detail = "deployment operations × window hours";
    book.addSpread(
      { item: "allocated_operations", route, detail, unit: "hour", unit_price: price.operations_per_hour, source },
      hours,
      weights,
    );
  }
}
