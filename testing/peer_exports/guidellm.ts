/**
 * Writes our own requests as GuideLLM's v0.2–0.3 report would hold them (`benchmarks.json` / `.yaml`): one
 * `generative_benchmark` per stage of our rows, with every request record kept (no sampling), for the round trip
 * through the GuideLLM reader.
 *
 * Mapping: our `scheduled_ms` is GuideLLM's `scheduler_info.targeted_start_time`; send, first token and completion are
 * `start_time`, `first_token_time` and `end_time` = `last_token_time` (epoch seconds). A successful request is our
 * `ok` (GuideLLM checks no content); `aborted` (in flight when the run stopped) is `incomplete`; every other sent
 * failure is `errored`, with our outcome and error kind as its error text. Never-sent rows are left out (GuideLLM
 * records only what its workers started). What our rows do not keep is written as GuideLLM's neutral value: the
 * queue times of scheduler_info as the targeted start, prompt and output text as "", the `metrics` distributions as
 * none (the reader takes the tool's records and totals; the distributions are only headlines).
 *
 * @module
 */
import { dump } from "js-yaml";
import type { RequestRow } from "../../schema/events.ts";
import { answered, epochMs, failureText, sentRows } from "./_rows.ts";

/** Options of {@linkcode exportGuidellm}. */
export interface GuidellmExportOptions {
  /** The run's epoch (run.json `epoch_iso`): GuideLLM's times are epoch seconds. */
  epoch_iso: string;
  /** The offered rate of each stage, req/s: a `constant` strategy; a stage not listed is `throughput`. */
  rates?: Record<string, number>;
  /** @default "sim" */
  model?: string;
  /** @default "json" */
  format?: "json" | "yaml";
}

type Status = "successful" | "errored" | "incomplete";
const statusOf = (r: RequestRow): Status =>
  answered(r) ? "successful" : r.outcome === "aborted" ? "incomplete" : "errored";

/** One request record in GuideLLM's v0.2–0.3 shape. */
function record(r: RequestRow, epoch: number, status: Status): Record<string, unknown> {
  const sec = (ms: number | null) => ms === null ? null : (epoch + ms) / 1000;
  const start = sec(r.first_sent_ms)!;
  const first = sec(r.first_token_ms);
  const end = sec(r.completed_ms) ?? first ?? start;
  const ok = status === "successful";
  const n = r.output_tokens;
  const latency = end - start;
  const target = sec(r.scheduled_ms)!;
  return {
    type_: ok ? "generative_text_response" : "generative_text_error",
    request_id: r.request_id,
    request_type: "chat_completions",
    scheduler_info: {
      requested: true,
      completed: ok,
      errored: status === "errored",
      canceled: status === "incomplete",
      targeted_start_time: target,
      queued_time: target,
      dequeued_time: target,
      scheduled_time: target,
      worker_start: start,
      request_start: start,
      request_end: end,
      worker_end: end,
      process_id: 0,
    },
    prompt: "",
    output: "",
    prompt_tokens: r.input_tokens,
    output_tokens: n,
    start_time: start,
    end_time: end,
    first_token_time: first,
    last_token_time: ok ? end : first,
    request_latency: latency,
    time_to_first_token_ms: first === null ? null : 1000 * (first - start),
    time_per_output_token_ms: ok && n > 0 ? 1000 * (end - first!) / n : null,
    inter_token_latency_ms: ok && n > 1 ? 1000 * (end - first!) / (n - 1) : null,
    tokens_per_second: latency > 0 ? (r.input_tokens + n) / latency : 0,
    output_tokens_per_second: latency > 0 ? n / latency : 0,
    ...(ok ? {} : { error: failureText(r) }),
  };
}

/** The text of a GuideLLM v0.2–0.3 report for our rows. */
export function exportGuidellm(rows: readonly RequestRow[], options: GuidellmExportOptions): string {
  const epoch = epochMs(options.epoch_iso);
  const sent = sentRows(rows);
  const stages = [...new Set(sent.map((r) => r.stage))];
  const benchmarks = stages.map((stage, i) => {
    const mine = sent.filter((r) => r.stage === stage);
    const lists: Record<Status, Record<string, unknown>[]> = { successful: [], errored: [], incomplete: [] };
    for (const r of mine) lists[statusOf(r)].push(record(r, epoch, statusOf(r)));
    const all = Object.values(lists).flat();
    const start = Math.min(...all.map((x) => x.start_time as number));
    const end = Math.max(...all.map((x) => x.end_time as number));
    const rate = options.rates?.[stage];
    return {
      type_: "generative_benchmark",
      id_: `benchmark-${i}`,
      run_id: "export",
      args: {
        profile: { type_: "fixed", strategy_types: stages.map(() => (rate === undefined ? "throughput" : "constant")) },
        strategy_index: i,
        strategy: rate === undefined
          ? { type_: "throughput", max_concurrency: null }
          : { type_: "constant", rate, initial_burst: false },
        max_number: null,
        max_duration: null,
        warmup_number: null,
        warmup_duration: null,
        cooldown_number: null,
        cooldown_duration: null,
      },
      worker: {
        type_: "generative_requests_worker",
        backend_type: "openai_http",
        backend_model: options.model ?? "sim",
      },
      request_loader: null,
      extras: { stage },
      metrics: {},
      start_time: start,
      end_time: end,
      request_totals: {
        successful: lists.successful.length,
        errored: lists.errored.length,
        incomplete: lists.incomplete.length,
        total: all.length,
      },
      request_samples: null,
      requests: { ...lists, total: null },
      duration: end - start,
    };
  });
  const report = { benchmarks };
  return options.format === "yaml" ? `---\n${dump(report)}` : JSON.stringify(report);
}
