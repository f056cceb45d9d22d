/**
 * What a vLLM result file does not hold, field by field, for each form (legacy, summary, detailed, converted).
 *
 * @module
 */
import type { SourceLack } from "../source.ts";
import { noGates } from "./_lacks.ts";

/** What a vLLM result does not hold, for the form read. */
export function vllmLacks(form: { legacy: boolean; detailed: boolean; startTimes: boolean }): SourceLack[] {
  const lacks: SourceLack[] = [{
    field: "scheduled_ms",
    consequence: "vLLM keeps no intended send time: every latency runs from the actual POST, so a request sent " +
      "late by the client or held by --max-concurrency starts its clock late (coordinated omission possible); " +
      "schedule-based latency cannot be computed.",
  }];
  if (!form.detailed) {
    lacks.push({
      field: "per-request records",
      consequence: "Summary only (no --save-detailed): percentiles under other rules, goodput under another SLO " +
        "and the offered denominator cannot be recomputed; the tool's numbers stand as aggregate claims.",
    });
  }
  lacks.push({
    field: "time window",
    consequence: form.startTimes
      ? "Send times are time.perf_counter() seconds (arbitrary origin): a window relative to the first send can be " +
        "rebuilt, but no wall-clock time."
      : "No send or completion time per request, only durations and the run's duration: no time window, no " +
        "arrival pattern; rates cannot be recomputed from the requests.",
  });
  lacks.push({
    field: "failed requests",
    consequence: form.detailed
      ? "Failed requests are listed with their error text only (no times, no HTTP status, output length written " +
        "as 0): they count in the offered denominator, their latency is unknown."
      : form.legacy
      ? "No failure count and no failed request: the offered denominator cannot be recovered from the file " +
        "(num_prompts is what was meant to be sent)."
      : "Failed requests are counted (failed) but none of their times: every latency statistic covers successful " +
        "requests only.",
  });
  lacks.push({
    field: "token counts",
    consequence: "Output lengths are the server's usage.completion_tokens when the stream reported it, else vLLM's " +
      "tokenizer on the generated text; prompt lengths are the dataset's tokenizer count (newer versions: the " +
      "server's usage.prompt_tokens when reported). The file does not say which.",
  });
  lacks.push(noGates());
  return lacks;
}
