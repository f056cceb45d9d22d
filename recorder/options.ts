/**
 * The recorder's options with their defaults, checked once when it is created: a bad option is the app's own
 * configuration error, reported then (every problem at once), never later inside a user's request.
 *
 * @module
 */
import type { Clock, RecorderOptions, TaskExporter } from "./types.ts";

/** The default clock: wall-clock ms since the Unix epoch, from the monotonic `performance.now()`. */
export const SYSTEM_CLOCK: Clock = { now: () => performance.timeOrigin + performance.now() };

/** Every option resolved. */
export interface Settings {
  out: string;
  run_id: string;
  app: { name: string; version: string };
  workload: { name: string; classes: string[] };
  route: string;
  /** attempts.provider / model when neither the call nor the options name one: "" (not stated). */
  provider: string;
  model: string;
  conditions: Record<string, string>;
  sample: number;
  stage_s: number;
  rotate_s: number;
  rotate_bytes: number;
  max_rows: number;
  flush_ms: number;
  settle_ms: number;
  task_timeout_ms: number;
  page_wait_ms: number;
  onError: (error: unknown) => void;
  exporters: TaskExporter[];
  clock: Clock;
  writer: "thread" | "app";
}

/** The defaults, as docs/recorder.md states them. */
export const DEFAULTS = {
  route: "app",
  sample: 1,
  stage_s: 3600,
  rotate_s: 3600,
  rotate_bytes: 64 * 1024 * 1024,
  max_rows: 10_000,
  flush_ms: 1000,
  settle_ms: 50,
  task_timeout_ms: 600_000,
  page_wait_ms: 30_000,
} as const;

/** The longest timer Node and Deno keep (2^31 − 1 ms): a longer flush interval would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The options with their defaults. Throws a `TypeError` listing every problem (a missing name, a rate outside
 * (0, 1], a size that is not a positive integer, …).
 *
 * @example Defaults fill what is not given
 * ```ts
 * import { resolveOptions } from "./options.ts";
 * import assert from "node:assert/strict";
 * const s = resolveOptions({ out: "/tmp/x", run_id: "r", app: { name: "chat", version: "1.2.0" } });
 * assert.equal(s.sample, 1);
 * assert.equal(s.workload.name, "chat");
 * assert.throws(() => resolveOptions({ out: "", run_id: "r", app: { name: "chat", version: "1" }, sample: 0 }),
 *   /out: .*\n.*sample: /);
 * ```
 */
export function resolveOptions(o: RecorderOptions): Settings {
  const problems: string[] = [];
  const text = (name: string, v: unknown) => {
    if (typeof v !== "string" || v.length === 0) problems.push(`${name}: must be a non-empty string`);
  };
  const positive = (name: string, v: number, options: { int?: boolean; zero?: boolean; max?: number } = {}) => {
    const ok = Number.isFinite(v) && (options.zero ? v >= 0 : v > 0) && (!options.int || Number.isInteger(v)) &&
      (options.max === undefined || v <= options.max);
    if (!ok) {
      const what = options.int ? "integer" : "number";
      const bound = options.max === undefined ? "" : ` at most ${options.max}`;
      problems.push(`${name}: must be a ${options.zero ? "non-negative" : "positive"} ${what}${bound}, got ${v}`);
    }
  };
  text("out", o.out);
  text("run_id", o.run_id);
  text("app.name", o.app?.name);
  text("app.version", o.app?.version);
  const s: Settings = {
    out: o.out,
    run_id: o.run_id,
    app: { name: o.app?.name, version: o.app?.version },
    workload: { name: o.workload?.name ?? o.app?.name, classes: [...new Set(o.workload?.classes ?? [])] },
    route: o.route ?? DEFAULTS.route,
    provider: o.provider ?? "",
    model: o.model ?? "",
    conditions: { ...o.conditions },
    sample: o.sample ?? DEFAULTS.sample,
    stage_s: o.stage_s ?? DEFAULTS.stage_s,
    rotate_s: o.rotate?.every_s ?? DEFAULTS.rotate_s,
    rotate_bytes: o.rotate?.max_bytes ?? DEFAULTS.rotate_bytes,
    max_rows: o.buffer?.max_rows ?? DEFAULTS.max_rows,
    flush_ms: o.buffer?.flush_ms ?? DEFAULTS.flush_ms,
    settle_ms: o.buffer?.settle_ms ?? DEFAULTS.settle_ms,
    task_timeout_ms: o.task_timeout_ms ?? DEFAULTS.task_timeout_ms,
    page_wait_ms: o.page_wait_ms ?? DEFAULTS.page_wait_ms,
    onError: o.onError ?? (() => {}),
    exporters: [...o.exporters ?? []],
    clock: o.clock ?? SYSTEM_CLOCK,
    writer: o.writer ?? "thread",
  };
  text("workload.name", s.workload.name);
  text("route", s.route);
  for (const c of s.workload.classes) text("workload.classes[]", c);
  for (const [k, v] of Object.entries(s.conditions)) {
    if (typeof v !== "string") problems.push(`conditions.${k}: must be a string`);
  }
  if (!(s.sample > 0 && s.sample <= 1)) problems.push(`sample: must be in (0, 1], got ${s.sample}`);
  positive("stage_s", s.stage_s);
  positive("rotate.every_s", s.rotate_s);
  positive("rotate.max_bytes", s.rotate_bytes, { int: true });
  positive("buffer.max_rows", s.max_rows, { int: true });
  positive("buffer.flush_ms", s.flush_ms, { max: MAX_TIMER_MS });
  positive("buffer.settle_ms", s.settle_ms, { zero: true, max: MAX_TIMER_MS });
  positive("task_timeout_ms", s.task_timeout_ms);
  positive("page_wait_ms", s.page_wait_ms, { zero: true });
  if (typeof s.onError !== "function") problems.push("onError: must be a function");
  if (typeof s.clock?.now !== "function") problems.push("clock: must have a now() method");
  if (s.writer !== "thread" && s.writer !== "app") problems.push(`writer: must be "thread" or "app", got ${s.writer}`);
  if (problems.length) throw new TypeError(`recorder options:\n${problems.join("\n")}`);
  return s;
}
