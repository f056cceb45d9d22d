import { z } from "zod";

/** Where a target's server timeline comes from: its own metrics (llama.cpp, vLLM) or the simulator's timeline. */
export const ServerMetricsSource = z.enum(["llamacpp", "vllm", "sim"]);
export type ServerMetricsSource = z.infer<typeof ServerMetricsSource>;

/** `--server-metrics`: which source to read, `auto` to recognise it, `off` for none. */
export const ServerMetricsMode = z.enum(["auto", "llamacpp", "vllm", "sim", "off"]);
export type ServerMetricsMode = z.infer<typeof ServerMetricsMode>;

const count = z.number().int().nonnegative();

/** One distinct server of a run and how its timeline was read (run.json `server_metrics.targets[]`). */
export const ServerMetricsTarget = z.object({
  /** The routes whose target this server is (their names joined by "+" in the server table's `route`). */
  routes: z.array(z.string()).min(1),
  /** The server's base URL, query values redacted. */
  server: z.string(),
  /** The source read; null: none (the server was not polled, and has no server rows). */
  source: ServerMetricsSource.nullable(),
  /** How the source was chosen, or why there is none. */
  how: z.string(),
  /** The endpoints read (`/metrics`, `/slots`; `/sim/timeline`). */
  endpoints: z.array(z.string()),
  /** Server-table column → where its value comes from. */
  columns: z.record(z.string(), z.string()),
  /** Columns this source does not expose: written 0 in every row, meaning "not exposed", never a measured 0. */
  not_exposed: z.array(z.string()),
  /** Readings taken during the run (0 for `sim`, whose timeline is fetched once at the end). */
  polls: count,
  /** Readings that failed (no answer in time, not 200): no row for them. */
  failed_polls: count,
  /** Readings that answered but lacked a value a column needs (or a counter went backwards): no row for them. */
  rows_dropped: count,
  /** Lines of the answers that were not valid Prometheus text: dropped, the rest of the reading kept. */
  lines_dropped: count,
}).strict();
export type ServerMetricsTarget = z.infer<typeof ServerMetricsTarget>;

/** run.json `server_metrics`: how the server table was filled (absent in runs written before it existed). */
export const ServerMetricsRecord = z.object({
  mode: ServerMetricsMode,
  /** How often each polled server was read, ms. */
  period_ms: z.number().positive(),
  targets: z.array(ServerMetricsTarget),
  /** What a polled row is: when it is stamped and what its gauges mean. */
  note: z.string(),
}).strict();
export type ServerMetricsRecord = z.infer<typeof ServerMetricsRecord>;
