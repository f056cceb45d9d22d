/**
 * The words of an OTLP import: how spans became rows (run.json `mapping`, docs/otlp.md says the same) and what the
 * spans lack, found from the tasks read (run.json `lacks`).
 *
 * @module
 */
import { IMPORTED_CLASS } from "../../schema/imported_manifest.ts";
import type { SourceLack } from "../source.ts";
import { DEFAULT_STAGE, type TaskRowsRead } from "./otlp_rows.ts";

/** How spans become the contract's rows, in words. */
export const OTLP_MAPPING_RULES: readonly string[] = [
  "a task is a root span: a span with a goodput.request_id attribute, or a span with no parent; the spans under it " +
  "(not under another root) are its model calls (gen_ai.operation.name chat, text_completion or generate_content: " +
  "one attempts row each; a root that is itself such a span is also its own task's one call), its tool steps " +
  "(execute_tool: one tools row each, the tool gen_ai.tool.name; retrieval: the tool `retrieval`) and its phases " +
  "(a goodput.phase attribute); other spans are not read; rows follow the order of their spans in the files",
  "a task written by the recorder (goodput.outcome on its root) is read back field by field: every column from its " +
  "goodput.* attribute, its semantic-convention attribute (error.type, http.response.status_code, gen_ai.*), its " +
  "span's start and end, or its event (goodput.first_sent, goodput.headers, goodput.first_token, " +
  "goodput.last_token, goodput.completed); an absent attribute or event is null",
  "times: nanoseconds since the Unix epoch, placed on the run's clock exactly (to the nanosecond) from ms 0: the " +
  "recorder's epoch when every task states the same goodput.epoch_unix_nano, else the earliest root span start " +
  "floored to the ms",
  "another app's task: request_id is its trace id (with the root's span id when a trace has several roots); " +
  `class "${IMPORTED_CLASS}", stage "${DEFAULT_STAGE}", priority and shard 0, case_id and prompt_sha256 empty ` +
  "unless goodput.* attributes say otherwise; scheduled_ms is the root span's start, first_sent_ms the first " +
  "call's start, first_token_ms the first token of the first call that did not fail, completed_ms the root's end " +
  "unless its status is ERROR",
  "another app's outcome: ok unless the root's status is ERROR; then rejected with HTTP 429, http_error with another " +
  "http.response.status_code (the root's, else its last call's), transport_error with none; error_kind is " +
  'error.type (else the status message) prefixed "source: ", or the last call\'s error kind',
  "another app's call: provider gen_ai.provider.name (else gen_ai.system), model gen_ai.request.model (else " +
  "gen_ai.response.model), route the model; tokens gen_ai.usage.input_tokens, output_tokens, " +
  "cache_read.input_tokens, cache_creation.input_tokens and reasoning.output_tokens (token_source usage when one " +
  "is stated, else 0 and null); first_token_ms an event named like first_token or first_chunk; finish_reason the " +
  "first of gen_ai.response.finish_reasons; numbered by start time within its round (round 0 unless goodput.round)",
  "another app's request counts (attempts, rounds, tool_calls, tool_ms, tokens) are the sums over its calls and tool " +
  "steps (tool_calls: every tool step but retrieval); gates are null and applicable_gates empty (no gate applies: " +
  "n/a, not failed) unless goodput.* gate attributes say otherwise",
];

/** What the tasks read do not hold, each with its consequence (only what applies). */
export function otlpLacks(tasks: readonly TaskRowsRead[]): SourceLack[] {
  const other = tasks.filter((t) => !t.recorded);
  const out: SourceLack[] = [];
  if (tasks.length > other.length) {
    out.push({
      field: "sampling and dropped tasks",
      consequence: "the recorder's sampling rate and the tasks it or its exporter dropped are stated in its own " +
        "run.json (kind production), not in the spans: the offered denominator here is the tasks exported",
    });
  }
  if (!other.length) return out;
  const n = `${other.length} task(s) of another app`;
  out.push({
    field: "offered",
    consequence: `${n}: the tasks are the traces in the files; a user action never traced (not instrumented, ` +
      "sampled out, lost by the collector) is not counted, and the sampling rule, which the spans do not state, may " +
      "bias acceptance and latency (tail sampling keeps errors and slow traces preferentially)",
  });
  out.push({
    field: "scheduled_ms",
    consequence: `${n}: no user action; scheduled_ms is the root span's start (the app began to handle the ` +
      "request), not the user's click or submit, so the page, the network before the app and any queue in front of " +
      "it are outside the latency",
  });
  const noGates = other.filter((t) => t.request.applicable_gates === "").length;
  if (noGates) {
    out.push({
      field: "gates",
      consequence: `${noGates} task(s) with no gate attribute (goodput.output_valid, goodput.quality_ok, …): no ` +
        "quality, schema, safety or authorization check, so their gates are n/a, not failed",
    });
  }
  const noClass = other.filter((t) => t.request.class === IMPORTED_CLASS).length;
  if (noClass) {
    out.push({
      field: "class",
      consequence: `${noClass} task(s) with no goodput.class: they are in the one class "${IMPORTED_CLASS}", so an ` +
        "SLO policy names that class or applies its default",
    });
  }
  const calls = other.flatMap((t) => t.attempts);
  if (calls.length) {
    out.push({
      field: "retries",
      consequence: "retry_reason and backoff_ms are null for another app's calls (the spans do not say why a call " +
        "was repeated); calls are numbered by start time within their round, every call in round 0 unless " +
        "goodput.round says otherwise",
    });
  }
  const noFirst = calls.filter((a) => a.first_token_ms === null).length;
  if (noFirst) {
    out.push({
      field: "first token",
      consequence: `${noFirst} of ${calls.length} call(s) have no first-token event: their first_token_ms is null, ` +
        "and a task's TTFT is null when none of its calls has one",
    });
  }
  const noUsage = calls.filter((a) => a.token_source === null).length;
  if (noUsage) {
    out.push({
      field: "token counts",
      consequence: `${noUsage} of ${calls.length} call(s) have no gen_ai.usage.* attributes: written as 0 tokens ` +
        "(token_source null), so token sums and costs undercount them",
    });
  }
  if (other.some((t) => !t.phases.length)) {
    out.push({
      field: "phases",
      consequence: "no page, network or render phase for another app's tasks: the wait before the root span and " +
        "after it is not seen",
    });
  }
  return out;
}
