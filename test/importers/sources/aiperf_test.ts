import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { parseAiperf, readAiperf } from "../../../importers/sources/aiperf.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import type { SourceRun } from "../../../importers/source.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The real files (../shared/data/peers/README.md), read in place. */
const PEERS = join(ROOT, "../shared/data/peers/aiperf");
const files = (run: string) =>
  ["profile_export.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv"].map((f) => join(PEERS, run, f));
const RUN1 = files("run1");
const KIMI = files("inferencex_kimik2.7_conc1");

const value = (run: SourceRun, key: string) => {
  const h = run.headlines.find((x) => x.key === key);
  assert.ok(h, `headline ${key}`);
  return h.value;
};

Deno.test("readAiperf() reads the early-form run (Oct 2025): 89 answered, 11 cancelled", async (t) => {
  const run = await readAiperf(RUN1);
  await t.step("records: outcomes, the first answered record's times and token counts", () => {
    // python: 100 lines; 89 with error null; 11 with error {code: 499, type: RequestCancellationError}
    assert.equal(run.requests.length, 100);
    assert.equal(run.requests.filter((q) => q.outcome === "ok").length, 89);
    assert.equal(run.requests.filter((q) => q.outcome === "cancelled").length, 11);
    assert.equal(
      run.requests[0]!.tool_status,
      "499 RequestCancellationError: Request was cancelled after 0.000 seconds",
    );
    assert.equal(run.requests[0]!.http_status, null); // 499 is AIPerf's own cancellation code, not the server's
    const q = run.requests[11]!; // line 12: the first record with error null
    assert.equal(q.at.endsWith("profile_export.jsonl:12"), true);
    assert.equal(q.id, "1ed40a0d-e708-434d-bb8e-fb1b44cb8717");
    assert.equal(q.ttft_ms, 1680.543782); // metrics.ttft {value 1680.543782, unit ms}
    assert.equal(q.e2e_ms, 7936.968269); // metrics.request_latency
    // metadata.timestamp_ns 1759522419159192408 → ms (float: within 1 µs)
    assert.ok(Math.abs(q.sent_epoch_ms! - 1759522419159.192408) < 1e-3);
    assert.ok(Math.abs(q.completed_epoch_ms! - (q.sent_epoch_ms! + 7936.968269)) < 1e-6);
    // input/output_sequence_length 550 / 193 (AIPerf's tokenizer, reasoning included); 192 inter-chunk gaps
    assert.deepEqual([q.input_tokens, q.output_tokens, q.token_source, q.itl_ms!.length], [
      550,
      193,
      "tool_tokenizer",
      192,
    ]);
    assert.equal(q.scheduled_epoch_ms, null);
  });
  await t.step("the profiling stage from the JSON: concurrency 100, 89 ok, 11 cancelled, the ns window", () => {
    // records.request_count.avg 89, error_request_count.avg 11, error_summary: 11 × RequestCancellationError
    assert.deepEqual(run.stages.map((s) => [s.name, s.concurrency, s.rate_rps, s.totals]), [
      ["profiling", 100, null, { ok: 89, error: 0, cancelled: 11, incomplete: null }],
    ]);
    assert.equal(run.stages[0]!.duration_s, 9.317788951); // records.benchmark_duration.avg
    assert.equal(run.model, "openai/gpt-oss-20b");
    assert.equal(run.summary_only, false);
  });
  await t.step("headlines from the JSON (records.<tag>.<stat>) and the CSV (label/stat, label)", () => {
    assert.equal(value(run, "records.request_throughput.avg"), 9.551622221540914); // = 89 / 9.317788951
    assert.equal(value(run, "Request Throughput (requests/sec)"), 9.55); // CSV block 2, rounded by AIPerf
    assert.equal(value(run, "Time to First Token (ms)/p99"), 3833.39); // CSV block 1
    assert.equal(value(run, "records.ttft.p99"), 3833.3894000399996);
    const ttft = run.headlines.find((h) => h.key === "records.ttft.p99")!;
    assert.match(ttft.definition, /first response chunk − request start/);
    assert.match(run.headlines.find((h) => h.key === "records.request_count.avg")!.definition, /^value of/);
  });
  await t.step("the notes say the per-record timestamps are the record's own", () => {
    assert.match(run.notes.join("\n"), /that record's own send and last-response times/);
  });
});

Deno.test("readAiperf() reads the 0.8.0-form run: warmup apart, server usage counts, lifecycle times", async () => {
  const run = await readAiperf(KIMI);
  // python: 196 lines, benchmark_phase warmup 1 / profiling 195, no error key anywhere
  assert.equal(run.requests.length, 196);
  assert.deepEqual(run.stages.map((s) => [s.name, s.totals.ok]), [["warmup", null], ["profiling", 195]]);
  assert.equal(run.requests.every((q) => q.outcome === "ok"), true);
  const w = run.requests[0]!;
  assert.equal(w.stage, "warmup");
  assert.equal(w.ttft_ms, 39641.874684999995); // metrics.time_to_first_token
  // request_start_ns 1783588508057339762, request_end_ns 1783588547699214447
  assert.ok(Math.abs(w.sent_epoch_ms! - 1783588508057.339762) < 1e-3);
  assert.ok(Math.abs(w.completed_epoch_ms! - 1783588547699.214447) < 1e-3);
  // usage_prompt_tokens 192422, usage_completion_tokens 1: the server's counts
  assert.deepEqual([w.input_tokens, w.output_tokens, w.token_source], [192422, 1, "server_usage"]);
  assert.equal(w.itl_ms, null); // one token: no inter_chunk_latency
  assert.equal(run.tool_version, "0.8.0");
  assert.equal(run.stages[1]!.concurrency, 1);
  assert.equal(value(run, "request_throughput.avg"), 0.053718967521881635);
  assert.equal(value(run, "time_to_first_token.p99"), 92945.99563524);
  assert.equal(value(run, "Time to First Token (ms)/p99"), 92946.0);
  assert.ok(run.headlines.some((h) => h.stage === "warmup" && h.key === "warmup_metrics.request_latency.avg"));
  assert.match(run.notes.join("\n"), /1 warmup record/);
});

Deno.test("readAiperf() reads the aggregates alone as a summary-only run", async () => {
  for (const f of [RUN1[1]!, RUN1[2]!, KIMI[1]!, KIMI[2]!]) {
    const run = await readAiperf([f]);
    assert.equal(run.summary_only, true, f);
    assert.deepEqual(run.requests, []);
    assert.ok(run.lacks.some((l) => l.field === "per-request records"));
  }
  // CSV alone: Request Count 89, Error Request Count 11 (cancellations not split out)
  const csv = await readAiperf([RUN1[2]!]);
  assert.deepEqual(csv.stages[0]!.totals, { ok: 89, error: 11, cancelled: null, incomplete: null });
  assert.equal(csv.stages[0]!.duration_s, 9.32);
});

Deno.test("parseAiperf() refuses malformed exports, naming the file and the line or key", async (t) => {
  const jsonl = Deno.readTextFileSync(RUN1[0]!);
  const refuse = (path: string, text: string, pattern: RegExp) => {
    const src = sourceText(path, text);
    assert.throws(() => parseAiperf([src]), (e) => e instanceof InputError && pattern.test(e.message));
  };
  await t.step("a JSONL cut in the middle of a line: its line number and column", () => {
    const cut = jsonl.slice(0, jsonl.indexOf("\n", 5000) - 40);
    // the cut line is the last one: its number is the count of line breaks before the cut + 1
    const line = cut.split("\n").length;
    refuse("cut.jsonl", cut, new RegExp(`cut\\.jsonl:${line}:\\d+: not valid JSON`));
  });
  await t.step(
    "a record whose metric value is a string",
    () =>
      refuse(
        "typed.jsonl",
        jsonl.replace('"ttft":{"value":1680.543782', '"ttft":{"value":"fast"'),
        /typed\.jsonl:12: metrics\.ttft\.value/,
      ),
  );
  await t.step(
    "a record without a send time",
    () =>
      refuse(
        "nostart.jsonl",
        jsonl.replace('"timestamp_ns":1759522419154829652,', ""),
        /nostart\.jsonl:1: metadata: neither request_start_ns nor timestamp_ns/,
      ),
  );
  await t.step(
    "a time metric in a unit that is not a time",
    () =>
      refuse(
        "unit.jsonl",
        jsonl.replace(
          '"request_latency":{"value":7936.968269,"unit":"ms"}',
          '"request_latency":{"value":7936.968269,"unit":"tokens"}',
        ),
        /unit\.jsonl:12: metrics\.request_latency: unit "tokens"/,
      ),
  );
  await t.step("a CSV row with a cell that is not a number", () => {
    const csv = Deno.readTextFileSync(RUN1[2]!).replace("Request Count,89.00", "Request Count,many");
    return refuse("bad.csv", csv, /bad\.csv:\d+: Value: "many" is not a number/);
  });
  await t.step(
    "a JSON that is no AIPerf aggregate",
    () => refuse("other.json", '{"hello": 1}', /not an AIPerf aggregate/),
  );
  await t.step("two JSONL files at once", () => {
    const a = sourceText("a.jsonl", jsonl);
    assert.throws(() => parseAiperf([a, a]), /a second \.jsonl file/);
  });
});
