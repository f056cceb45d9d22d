import type { Disclosure } from "../goodput/disclosure.ts";

/** The one-line disclosure of a goodput-based figure: run, denominator, window, n. */
export function disclosureLine(d: Disclosure, extra: string[] = []): string {
  return [
    `run ${d.run_id}`,
    `denominator ${d.denominator}`,
    `window ${d.window.stages.join("+")} (${+d.window.measurement_seconds.toFixed(3)} s)`,
    `n = ${d.n.overall} offered`,
    ...extra,
  ].join("; ");
}

/** The one-line disclosure of a figure computed over a resolved window without a goodput result. */
export function windowLine(runId: string, stages: string[], seconds: number, extra: string[] = []): string {
  return [`run ${runId}`, `window ${stages.join("+")} (${+seconds.toFixed(3)} s)`, ...extra].join("; ");
}

/** Indices 0..n−1 thinned to at most `max` (ends kept), for curves drawn from many points. */
export function thin(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const out: number[] = [];
  for (let k = 0; k < max; k++) out.push(Math.round((k * (n - 1)) / (max - 1)));
  return out;
}
