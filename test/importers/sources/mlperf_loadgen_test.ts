import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { loadSourceTexts, sourceText } from "../../../importers/sources/_source_text.ts";
import { readMlperfLoadgen } from "../../../importers/sources/mlperf_loadgen.ts";

/** The real logs (mlcommons/inference submission sample, ../shared/data/peers/README.md), read in place. */
const DIR = fileURLToPath(
  new URL(
    "../../../../shared/data/peers/mlperf-inference/AMD_8xMI300X_llama2-70b-99.9_Interactive_run_1/",
    import.meta.url,
  ),
);
const SUMMARY = `${DIR}mlperf_log_summary.txt`;
const DETAIL = `${DIR}mlperf_log_detail.txt`;
/** LoadGen's shipped settings (../shared/data/reference, MLCommons loadgen/mlperf.conf). */
const CONF = fileURLToPath(new URL("../../../../shared/data/reference/mlperf_loadgen_mlperf.conf", import.meta.url));

const value = (run: ReturnType<typeof readMlperfLoadgen>, key: string) => run.headlines.find((h) => h.key === key);

Deno.test("readMlperfLoadgen() reads the real detail log as aggregate claims under LoadGen's keys", async (t) => {
  const run = readMlperfLoadgen(await loadSourceTexts([DETAIL]));
  await t.step("summary-only: one Server stage at the scheduled 29.5 queries/s, no per-query records", () => {
    assert.equal(run.summary_only, true);
    assert.equal(run.requests.length, 0);
    assert.equal(run.stages.length, 1);
    // grep: "effective_scenario", "value": "Server"; "effective_target_qps", "value": 29.5;
    // "test_datetime", "value": "2025-07-31T09:43:18Z" → Date.UTC(2025, 6, 31, 9, 43, 18) = 1753954998000.
    assert.deepEqual(run.stages[0], {
      name: "Server",
      rate_rps: 29.5,
      concurrency: null,
      start_epoch_ms: 1753954998000,
      end_epoch_ms: null,
      duration_s: null,
      totals: { ok: null, error: null, cancelled: null, incomplete: null },
    });
    assert.equal(run.tool_version, "5.1.0 @ 091d51f041");
  });
  await t.step("validity, rates and the TTFT/TPOT percentiles against their limits, as logged", () => {
    // Each from grep '"key": "<key>"' mlperf_log_detail.txt.
    assert.deepEqual([value(run, "result_validity")?.text, value(run, "result_validity")?.value], ["VALID", 1]);
    // LoadGen's own pass/fail rules are stated with the verdict.
    for (const rule of [/min_duration/, /min_query_count/, /≤ ttft_latency/, /≤ tpot_latency/, /99% confidence/]) {
      assert.match(value(run, "result_validity")!.definition, rule);
    }
    assert.equal(value(run, "result_perf_constraints_met")?.value, 1);
    assert.equal(value(run, "result_completed_samples_per_sec")?.value, 29.4065);
    assert.equal(value(run, "result_scheduled_samples_per_sec")?.value, 29.6212);
    assert.equal(value(run, "result_first_token_99.00_percentile_latency_ns")?.value, 435976100);
    assert.equal(value(run, "result_time_per_output_token_99.00_percentile_ns")?.value, 39507635);
    assert.equal(value(run, "requested_server_ttft_latency")?.value, 450000000);
    assert.equal(value(run, "requested_server_tpot_latency")?.value, 40000000);
    assert.equal(value(run, "result_query_count")?.value, 24576);
    assert.equal(value(run, "num_errors")?.value, 0);
    // LoadGen's own constraint, recomputed from its numbers: 435976100 ≤ 450000000 and 39507635 ≤ 40000000.
    assert.ok(435976100 <= 450000000 && 39507635 <= 40000000);
  });
  await t.step("the limits are the shipped llama2-70b-interactive settings (ms in mlperf.conf, ns in the log)", () => {
    const conf = Deno.readTextFileSync(CONF);
    const ms = (name: string) =>
      Number(new RegExp(`^llama2-70b-interactive\\.Server\\.${name} = (\\d+)`, "m").exec(conf)![1]);
    assert.equal(value(run, "requested_server_ttft_latency")?.value, ms("ttft_latency") * 1e6); // 450 ms
    assert.equal(value(run, "requested_server_tpot_latency")?.value, ms("tpot_latency") * 1e6); // 40 ms
  });
  await t.step("over-latency counts against target_latency 0: all 24576 queries, defined as no failure count", () => {
    const h = value(run, "result_overlatency_query_count")!;
    assert.equal(h.value, 24576);
    assert.match(h.definition, /not a count of failed/);
  });
  await t.step("every rule's definition is stated; the lacks name per-query records, failures and gates", () => {
    assert.equal(run.headlines.length, 56);
    assert.ok(run.headlines.every((h) => h.definition.length > 25), "every headline has a sentence of definition");
    assert.deepEqual(run.lacks.map((l) => l.field).slice(0, 3), ["per-query records", "failed requests", "gates"]);
  });
});

Deno.test("readMlperfLoadgen() reads the real summary text, alone and as the detail log's cross-check", async (t) => {
  await t.step("alone: labels as printed, units only in the labels", async () => {
    const run = readMlperfLoadgen(await loadSourceTexts([SUMMARY]));
    // The summary's lines: "Completed samples per second    : 29.41", "99.00 percentile first token latency (ns)   : 435976100".
    assert.equal(value(run, "Completed samples per second")?.value, 29.41);
    assert.equal(value(run, "99.00 percentile first token latency (ns)")?.value, 435976100);
    assert.equal(value(run, "99.00 percentile time to output token (ns)")?.value, 39507635);
    assert.equal(value(run, "99.00 percentile time to output token (ns)")?.unit, "ns");
    assert.deepEqual([value(run, "Result is")?.text, value(run, "Scenario")?.text], ["VALID", "Server"]);
    assert.equal(value(run, "ttft_latency (ns)")?.value, 450000000);
    assert.equal(run.stages[0]!.rate_rps, 29.5); // "target_qps : 29.5"
    assert.ok(run.notes.some((n) => /WARNING: sample_concatenate_permutation .* samples_per_query value$/.test(n)));
  });
  await t.step("with the detail log: one headline per number, and the two logs agree", async () => {
    const run = readMlperfLoadgen(await loadSourceTexts([SUMMARY, DETAIL]));
    assert.equal(run.headlines.length, 56);
    assert.deepEqual(run.notes.filter((n) => /disagrees/.test(n)), []);
    assert.equal(run.files.length, 2);
  });
  await t.step("a detail value that disagrees with the summary is noted", async () => {
    const [summary, detail] = await loadSourceTexts([SUMMARY, DETAIL]);
    const changed = detail!.text.replace(
      '"result_completed_samples_per_sec", "value": 29.4065',
      '"result_completed_samples_per_sec", "value": 31.2',
    );
    const run = readMlperfLoadgen([summary!, sourceText("mlperf_log_detail.txt", changed)]);
    assert.ok(run.notes.some((n) => /"Completed samples per second" \(29.41\) disagrees .* \(31.2\)/.test(n)));
  });
});

Deno.test("readMlperfLoadgen() refuses malformed and truncated logs, naming the file and the line", async (t) => {
  const [summary, detail] = await loadSourceTexts([SUMMARY, DETAIL]);
  const fails = (files: ReturnType<typeof sourceText>[], pattern: RegExp) =>
    assert.throws(() => readMlperfLoadgen(files), (e: unknown) => e instanceof InputError && pattern.test(e.message));
  const lines = detail!.text.split("\n");
  await t.step("a detail log cut inside line 100: file, line and column", () => {
    const cut = [...lines.slice(0, 99), lines[99]!.slice(0, 60)].join("\n");
    fails([sourceText("d.txt", cut)], /^d\.txt:100:\d+: not valid JSON/);
  });
  await t.step("a detail log cut after a whole line, before the results: names what is missing", () => {
    fails([sourceText("d.txt", lines.slice(0, 80).join("\n"))], /no result_validity entry/);
  });
  await t.step("an entry without metadata names the line and the key", () => {
    const bad = [...lines];
    bad[9] = ':::MLLOG {"key": "sut_name", "value": "PySUT", "time_ms": 0.01}';
    fails([sourceText("d.txt", bad.join("\n"))], /d\.txt:10: metadata/);
  });
  await t.step("a line that is not an MLLOG entry", () => {
    fails([sourceText("d.txt", `${lines[0]}\nhello\n`)], /d\.txt:2: not a ":::MLLOG \{json\}" line/);
  });
  await t.step("a summary cut before its parameters names the labels it lacks", () => {
    const cut = summary!.text.slice(0, summary!.text.indexOf("Test Parameters Used"));
    fails(
      [sourceText("s.txt", cut)],
      /s\.txt: the summary ends at line \d+ without "target_qps", "min_duration \(ms\)"/,
    );
  });
  await t.step("a text that is no LoadGen summary", () => {
    fails([sourceText("s.txt", "hello: 1\n")], /not an MLPerf LoadGen summary/);
  });
});
