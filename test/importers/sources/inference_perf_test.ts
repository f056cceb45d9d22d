import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { loadSourceTexts, sourceText } from "../../../importers/sources/_source_text.ts";
import { readInferencePerf, UNSTAGED } from "../../../importers/sources/inference_perf.ts";

/** The real files (kubernetes-sigs/inference-perf demos/kubecon-na-2025, ../shared/data/peers/README.md), in place. */
const DIR = fileURLToPath(
  new URL("../../../../shared/data/peers/inference-perf/kubecon-na-2025_vllm+batch_size/", import.meta.url),
);
const stageFile = (i: number) => `${DIR}stage_${i}_lifecycle_metrics.json`;
const SUMMARY = `${DIR}summary_lifecycle_metrics.json`;

/**
 * Derived from the raw files with python3, per stage i:
 *   d = json.load(open(f"stage_{i}_lifecycle_metrics.json")); ls = d["load_summary"]
 *   (ls["count"], d["successes"]["count"], d["failures"]["count"], ls["requested_rate"], ls["achieved_rate"],
 *    ls["send_duration"], d["successes"]["latency"]["time_to_first_token"]["p99"])
 */
const STAGES = [
  [60, 60, 0, 1.0, 1.0048047820203576, 59.713091611047275, 0.04251505806925707],
  [2278, 2278, 0, 37.97, 37.985012377965845, 59.971021658042446, 0.04574251086451113],
  [4496, 4496, 0, 74.94, 74.94142881123217, 59.99351855600253, 0.06029721509548836],
  [6715, 6715, 0, 111.92, 111.92445601750451, 59.99582431698218, 0.39746013901662075],
  [8933, 8933, 0, 148.89, 117.03961255391555, 76.32458622404374, 2.4361789956595747],
  [11151, 11151, 0, 185.86, 117.7360660995925, 94.7118446319364, 2.3318181619397365],
  [13369, 13369, 0, 222.83, 116.31878751107618, 114.93414164695423, 2.7509668692946434],
] as const;

const headline = (run: ReturnType<typeof readInferencePerf>, stage: string | null, key: string) =>
  run.headlines.find((h) => h.stage === stage && h.key === key)?.value;

Deno.test("readInferencePerf() reads every real stage report and the run summary as aggregate claims", async (t) => {
  const run = readInferencePerf(await loadSourceTexts([SUMMARY, ...STAGES.map((_, i) => stageFile(i))]));
  await t.step("summary-only: no per-request records, one stage per stage report in stage order", () => {
    assert.equal(run.summary_only, true);
    assert.equal(run.requests.length, 0);
    assert.deepEqual(run.stages.map((s) => s.name), STAGES.map((_, i) => `stage_${i}`));
    assert.equal(run.files.length, 8);
  });
  await t.step("each stage's totals, requested rate and the tool's achieved rate and TTFT p99", () => {
    STAGES.forEach(([count, ok, failed, requested, achieved, send, ttftP99], i) => {
      const s = run.stages[i]!;
      assert.deepEqual(s.totals, { ok, error: failed, cancelled: null, incomplete: null });
      assert.equal(s.rate_rps, requested);
      const name = `stage_${i}`;
      assert.equal(headline(run, name, "load_summary.count"), count);
      assert.equal(headline(run, name, "load_summary.achieved_rate"), achieved);
      assert.equal(headline(run, name, "load_summary.send_duration"), send);
      assert.equal(headline(run, name, "successes.latency.time_to_first_token.p99"), ttftP99);
      // The tool's achieved rate is count / send_duration (reportgen/base.py): 60 / 59.713091611047275 = 1.00480478…
      assert.ok(Math.abs(count / send - achieved) < 1e-12);
    });
  });
  await t.step("the run summary: 47002 = 60 + 2278 + 4496 + 6715 + 8933 + 11151 + 13369 requests", () => {
    assert.equal(headline(run, null, "load_summary.count"), 47002);
    assert.equal(headline(run, null, "successes.count"), 47002);
    // python3: json.load(open("summary_lifecycle_metrics.json"))["successes"]["throughput"]["requests_per_sec"]
    assert.equal(headline(run, null, "successes.throughput.requests_per_sec"), 73.96165655384814);
    assert.equal(STAGES.reduce((s, x) => s + x[0], 0), 47002);
  });
  await t.step(
    "every number is a headline with a definition of its own (122 per stage report, 119 in the summary)",
    () => {
      // python3: a recursive count of the numeric leaves of each file gives 122 per stage file and 119 for the summary.
      assert.equal(run.headlines.length, 7 * 122 + 119);
      assert.deepEqual(run.headlines.filter((h) => /no definition recorded/.test(h.definition)).map((h) => h.key), []);
      const tpot = run.headlines.find((h) => h.key === "successes.latency.time_per_output_token.p99")!;
      assert.match(tpot.definition, /first token excluded/);
      assert.equal(tpot.unit, "s");
    },
  );
  await t.step("lacks: per-request records, schedule, gates and the offered denominator", () => {
    const fields = run.lacks.map((l) => l.field);
    for (const f of ["per-request records", "scheduled_ms", "gates", "offered requests", "token counts"]) {
      assert.ok(fields.includes(f), f);
    }
  });
});

Deno.test("readInferencePerf() reads each real stage report alone", async () => {
  for (const [i, [, ok, failed, requested]] of STAGES.entries()) {
    const run = readInferencePerf(await loadSourceTexts([stageFile(i)]));
    assert.equal(run.stages.length, 1);
    assert.deepEqual(run.stages[0]!.totals, { ok, error: failed, cancelled: null, incomplete: null });
    assert.equal(run.stages[0]!.rate_rps, requested);
  }
});

/** Five hand-built records in three of the tool's versions; expected values worked out beside each. */
function perRequestText(): string {
  const chunk = (o: unknown) => JSON.stringify(o);
  return JSON.stringify([
    // Old info (input_tokens, output_tokens, output_token_times): TTFT 10.1 − 10.0 = 0.1 s; gaps 0.1, 0.2 s.
    {
      start_time: 10.0,
      end_time: 10.5,
      request: "{}",
      response: "hi",
      info: { input_tokens: 7, output_tokens: 3, output_token_times: [10.1, 10.2, 10.4] },
      error: null,
    },
    // request_metrics / response_metrics with raw chunks: the role-only chunk at 20.05 carries no text, so the first
    // token is at 20.2 (TTFT 0.2 s); the usage chunk at 20.8 carries none either: one gap, 20.6 − 20.2 = 0.4 s.
    {
      start_time: 20.0,
      end_time: 20.9,
      request: "{}",
      response: "Hello",
      info: {
        request_metrics: { text: { input_tokens: 11 }, image: null, video: null, audio: null },
        response_metrics: {
          output_tokens: 3,
          server_usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
          response_chunks: [
            chunk({ choices: [{ delta: { role: "assistant" } }] }),
            chunk({ choices: [{ delta: { content: "Hel" } }] }),
            chunk({ choices: [{ delta: { content: "lo" } }] }),
            chunk({ choices: [], usage: { completion_tokens: 2 } }),
          ],
          chunk_times: [20.05, 20.2, 20.6, 20.8],
        },
        input_tokens: 11,
      },
      error: null,
    },
    {
      start_time: 21.0,
      end_time: 21.25,
      request: "{}",
      response: '{"error":{"message":"rate limited"}}',
      info: { request_metrics: { text: { input_tokens: 11 } }, response_metrics: null, input_tokens: 11 },
      error: { error_type: "HTTP Error 429", error_msg: '{"error":{"message":"rate limited"}}' },
    },
    {
      start_time: 22.0,
      end_time: 52.0,
      request: "{}",
      response: "",
      info: { request_metrics: { text: { input_tokens: 9 } }, response_metrics: null, input_tokens: 9 },
      error: { error_type: "TimeoutError", error_msg: "Request timed out" },
    },
    // The newest shape: session_id and computed_metrics (s), kept under the tool's names in ms.
    {
      start_time: 30.0,
      end_time: 31.0,
      session_id: "s1",
      info: {
        request_metrics: { text: { input_tokens: 5 } },
        response_metrics: { output_tokens: 4, server_usage: null, output_token_times: [30.25, 30.5, 30.75, 31.0] },
      },
      computed_metrics: { time_to_first_token: 0.25, output_tokens: 4 },
      error: null,
    },
  ]);
}

Deno.test("readInferencePerf() reads per-request records of each version, errors included", () => {
  const run = readInferencePerf([sourceText("out/per_request_lifecycle_metrics.json", perRequestText())]);
  const [a, b, c, d, e] = run.requests;
  assert.equal(run.summary_only, false);
  assert.deepEqual(run.requests.map((r) => r.outcome), ["ok", "ok", "error", "error", "ok"]);
  assert.deepEqual(run.requests.map((r) => r.stage), Array(5).fill(UNSTAGED));
  const near = (x: number | null | undefined, y: number) =>
    assert.ok(x != null && Math.abs(x - y) < 1e-9, `${x} ≠ ${y}`);
  near(a!.ttft_ms, 100); // (10.1 − 10.0) s
  near(a!.e2e_ms, 500);
  a!.itl_ms!.forEach((g, i) => near(g, [100, 200][i]!));
  assert.deepEqual([a!.input_tokens, a!.output_tokens, a!.token_source], [7, 3, "tool_tokenizer"]);
  near(a!.tool_metrics["inference_perf.time_per_output_token_ms"], 150); // (10.4 − 10.1) / (3 − 1) s
  near(a!.tool_metrics["inference_perf.normalized_time_per_output_token_ms"], 500 / 3);
  near(b!.ttft_ms, 200); // the first chunk with text: 20.2 − 20.0
  b!.itl_ms!.forEach((g) => near(g, 400));
  assert.deepEqual([b!.input_tokens, b!.output_tokens, b!.token_source], [12, 2, "server_usage"]);
  assert.equal(b!.tool_metrics["inference_perf.output_tokens_tokenizer"], 3);
  assert.deepEqual([c!.tool_status, c!.http_status, c!.ttft_ms], ["HTTP Error 429", 429, null]);
  near(c!.e2e_ms, 250);
  assert.deepEqual([d!.tool_status, d!.http_status], ["TimeoutError", null]);
  near(d!.e2e_ms, 30_000);
  assert.equal(e!.id, "s1#4");
  near(e!.tool_metrics["inference_perf.computed_metrics.time_to_first_token_ms"], 250);
  assert.equal(e!.tool_metrics["inference_perf.computed_metrics.output_tokens"], 4);
  assert.deepEqual(e!.clock_ms, { scheduled: null, sent: 30_000, first_token: 30_250, completed: 31_000 });
  assert.equal(e!.sent_epoch_ms, null);
  assert.ok(run.lacks.some((l) => l.field === "epoch (wall-clock times)"));
});

/** A stage report with only what the reader checks (count, send_duration, rate). */
function stageReport(count: number, sendDuration: number, rate: number): string {
  return JSON.stringify({
    load_summary: { count, schedule_delay: null, send_duration: sendDuration, requested_rate: rate, achieved_rate: 1 },
    successes: { count, latency: {}, throughput: {} },
    failures: { count: 0, request_latency: null, prompt_len: null },
  });
}

Deno.test("readInferencePerf() gives records to stages by send order only when counts and send spans agree", async (t) => {
  // Sends at 1, 2, 4 (stage 0: span 4 − 1 = 3 s) then 10, 11 (stage 1: span 1 s); the file is in completion order.
  const rec = (start: number, end: number) => ({
    start_time: start,
    end_time: end,
    info: { input_tokens: 1, output_tokens: 1 },
    error: null,
  });
  const perRequest = sourceText(
    "per_request_lifecycle_metrics.json",
    JSON.stringify([rec(2, 3), rec(1, 5), rec(4, 4.5), rec(11, 12), rec(10, 13)]),
  );
  await t.step("counts 3 + 2 and spans 3 s and 1 s: assigned", () => {
    const run = readInferencePerf([
      perRequest,
      sourceText("stage_1_lifecycle_metrics.json", stageReport(2, 1, 2)),
      sourceText("stage_0_lifecycle_metrics.json", stageReport(3, 3, 1)),
    ]);
    assert.deepEqual(run.requests.map((r) => r.stage), ["stage_0", "stage_0", "stage_0", "stage_1", "stage_1"]);
    assert.ok(run.notes.some((n) => /stages assigned by send order/.test(n)));
  });
  await t.step("a send span that disagrees with the report: unstaged, with a note naming the stage", () => {
    const run = readInferencePerf([
      perRequest,
      sourceText("stage_0_lifecycle_metrics.json", stageReport(3, 2.5, 1)),
      sourceText("stage_1_lifecycle_metrics.json", stageReport(2, 1, 2)),
    ]);
    assert.deepEqual(new Set(run.requests.map((r) => r.stage)), new Set([UNSTAGED]));
    assert.ok(run.notes.some((n) => /^stage_0: .*send_duration 2.5 s/.test(n)));
  });
  await t.step("counts that do not add up (4 + 2 ≠ 5 records): unstaged", () => {
    const run = readInferencePerf([
      perRequest,
      sourceText("stage_0_lifecycle_metrics.json", stageReport(4, 3, 1)),
      sourceText("stage_1_lifecycle_metrics.json", stageReport(2, 1, 2)),
    ]);
    assert.deepEqual(new Set(run.requests.map((r) => r.stage)), new Set([UNSTAGED]));
    assert.ok(run.notes.some((n) => /count 6 requests but the per-request file holds 5/.test(n)));
  });
});

Deno.test("readInferencePerf() refuses malformed and truncated files, naming the file and the place", async (t) => {
  const real = (await loadSourceTexts([stageFile(3)]))[0]!;
  const fails = (files: ReturnType<typeof sourceText>[], pattern: RegExp) =>
    assert.throws(() => readInferencePerf(files), (e: unknown) => e instanceof InputError && pattern.test(e.message));
  await t.step("a real stage report cut in the middle: file, line and column", () => {
    const cut = real.text.slice(0, Math.floor(real.text.length / 2));
    fails(
      [sourceText("x/stage_3_lifecycle_metrics.json", cut)],
      /^x\/stage_3_lifecycle_metrics\.json:1:\d+: not valid JSON/,
    );
  });
  await t.step("a count of the wrong type names load_summary.count", () => {
    const bad = real.text.replace('"count": 6715', '"count": "6715"');
    fails([sourceText("stage_3_lifecycle_metrics.json", bad)], /load_summary\.count/);
  });
  await t.step("a missing successes block names it", () => {
    const value = JSON.parse(real.text);
    delete value.successes;
    fails(
      [sourceText("stage_3_lifecycle_metrics.json", JSON.stringify(value))],
      /stage_3_lifecycle_metrics\.json: successes:/,
    );
  });
  await t.step("a per-request record without end_time names its index", () => {
    const recs = JSON.parse(perRequestText());
    delete recs[1].end_time;
    fails([sourceText("per_request_lifecycle_metrics.json", JSON.stringify(recs))], /\[1\]\.end_time/);
  });
  await t.step("a per-request file that is not an array, and an unknown file name", () => {
    fails([sourceText("per_request_lifecycle_metrics.json", "{}")], /JSON array/);
    fails([sourceText("results.json", "{}")], /not an inference-perf file name/);
  });
});
