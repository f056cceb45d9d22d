import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { readVllmBench } from "../../../importers/sources/vllm_bench.ts";
import { parseVllmBench } from "../../../importers/sources/vllm_bench.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import type { SourceRun } from "../../../importers/source.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The real files (../shared/data/peers/README.md), read in place. */
const PEERS = join(ROOT, "../shared/data/peers");
const LEGACY = join(PEERS, "vllm-bench-serve/legacy_benchmark_serving_py/benchmark_2025-05-11_23-00-27.json");
const FIXTURE = join(PEERS, "vllm-bench-serve/llm-d-benchmark_fixture/vllm_benchmark_results.json");
const REPORT = join(PEERS, "llm-d-benchmark/br_v0_2_golden/vllm_benchmark.v0_2.yaml");

const headline = (run: SourceRun, key: string) => {
  const h = run.headlines.find((x) => x.key === key);
  assert.ok(h, `headline ${key}`);
  return h;
};

Deno.test("readVllmBench() reads the legacy benchmark_serving.py result", async (t) => {
  const run = await readVllmBench([LEGACY]);
  await t.step("one summary-only stage at the configured rate, completed from the file, no failure count", () => {
    // jq '.request_rate, .duration, .completed, has("failed")' → 1.8, 115.64483956806362, 200, false
    assert.equal(run.summary_only, true);
    assert.deepEqual(run.requests, []);
    assert.deepEqual(run.stages, [{
      name: "request_rate=1.8",
      rate_rps: 1.8,
      concurrency: null,
      start_epoch_ms: null,
      end_epoch_ms: null,
      duration_s: 115.64483956806362,
      totals: { ok: 200, error: null, cancelled: null, incomplete: null },
    }]);
    assert.equal(run.model, "meta-llama/Llama-3.1-8B-Instruct");
    assert.match(run.files[0]!.format, /benchmark_serving\.py.*legacy.*summary/);
    // sha256sum in ../shared/data/peers/README.md
    assert.equal(run.files[0]!.sha256, "ee60b155cf2fbf861e15db694e81861290db4c51bc6f457b67d9b88116cb741b");
  });
  await t.step("every result key is a headline under its own name, the stray-colon goodput key included", () => {
    // 32 keys; 8 run numbers (duration, completed, total_input/output_tokens, request_throughput,
    // "request_goodput:", output_throughput, total_token_throughput) + mean/median/std/p95/p99 × ttft, tpot, itl = 23
    assert.equal(run.headlines.length, 23);
    assert.equal(headline(run, "request_goodput:").value, null);
    assert.equal(headline(run, "p99_ttft_ms").value, 1677.645647451281); // jq '.p99_ttft_ms'
    assert.equal(headline(run, "request_throughput").value, 1.7294329841868001); // = 200 / 115.64483956806362
    assert.match(headline(run, "mean_tpot_ms").definition, /excluding the first/);
    assert.equal(run.headlines.some((h) => h.key === "request_goodput"), false);
  });
  await t.step("the notes name the stray colon, the missing failed count and the metadata key", () => {
    assert.match(run.notes.join("\n"), /"request_goodput:" \(a stray colon/);
    assert.match(run.notes.join("\n"), /num_prompts 200 − completed 200 = 0/);
    assert.match(run.notes.join("\n"), /--metadata: timestamp="2025-05-11_23-00-27,model"/);
    assert.ok(run.lacks.some((l) => l.field === "failed requests" && /offered denominator cannot/.test(l.consequence)));
  });
});

Deno.test("readVllmBench() reads the vllm bench serve summary with failed requests", async () => {
  const run = await readVllmBench([FIXTURE]);
  // jq '.request_rate, .max_concurrency, .completed, .failed, .duration' → 8.0, 512, 198, 2, 39.0063
  assert.deepEqual(run.stages[0]!.totals, { ok: 198, error: 2, cancelled: null, incomplete: null });
  assert.equal(run.stages[0]!.name, "request_rate=8,max_concurrency=512");
  assert.equal(run.stages[0]!.concurrency, 512);
  assert.equal(run.stages[0]!.duration_s, 39.0063);
  // 11 run numbers + 13 statistics (mean, median, std, p0.1 … p99.9) × ttft, tpot, itl, e2el = 63
  assert.equal(run.headlines.length, 63);
  assert.equal(headline(run, "p99.9_e2el_ms").value, 17033.3706);
  assert.equal(headline(run, "request_goodput").value, null);
  assert.equal(headline(run, "max_concurrent_requests").value, 124);
  assert.ok(run.lacks.some((l) => /successful requests only/.test(l.consequence)));
});

Deno.test("readVllmBench() reads llm-d's Benchmark Report v0.2 of the same run as vLLM's numbers", async (t) => {
  const run = await readVllmBench([REPORT]);
  const twin = JSON.parse(Deno.readTextFileSync(FIXTURE)) as Record<string, number>;
  await t.step("each latency statistic equals the vLLM key it was converted from", () => {
    const metric = {
      time_to_first_token: "ttft",
      time_per_output_token: "tpot",
      inter_token_latency: "itl",
      request_latency: "e2el",
    };
    const stat = (s: string) => s === "stddev" ? "std" : s === "p50" ? "median" : s.replace(/^p(\d+)p(\d+)$/, "p$1.$2");
    const latency = run.headlines.filter((h) => h.key.includes(".latency."));
    // 4 latencies × 12 statistics (mean, stddev, p0p1, p1, p5, p10, p50, p75, p90, p95, p99, p99p9)
    assert.equal(latency.length, 48);
    for (const h of latency) {
      const [, , , , name, s] = h.key.split(".");
      const key = `${stat(s!)}_${metric[name as keyof typeof metric]}_ms`;
      assert.equal(h.value, twin[key], `${h.key} vs ${key}`);
    }
  });
  await t.step("the converted throughput and request counts, and the stage from the standardized load", () => {
    assert.equal(headline(run, "results.request_performance.aggregate.throughput.request_rate.mean").value, 5.0761);
    assert.match(
      headline(run, "results.request_performance.aggregate.throughput.request_rate.mean").definition,
      /completed \/ duration/,
    );
    // requests.total 200, failures 2 → ok 198; standardized rate_qps 8.0, concurrency 512
    assert.deepEqual(run.stages[0]!.totals, { ok: 198, error: 2, cancelled: null, incomplete: null });
    assert.deepEqual([run.stages[0]!.rate_rps, run.stages[0]!.concurrency], [8, 512]);
    assert.equal(run.summary_only, true);
    assert.ok(run.lacks.some((l) => l.field === "source file"));
  });
});

Deno.test("parseVllmBench() refuses what is not a vLLM result, naming the file and the key", async (t) => {
  const legacy = Deno.readTextFileSync(LEGACY);
  const refuse = (path: string, text: string, pattern: RegExp) => {
    const src = sourceText(path, text);
    assert.throws(() => parseVllmBench(src), (e) => e instanceof InputError && pattern.test(e.message));
  };
  await t.step(
    "a file cut in the middle",
    () => refuse("cut.json", legacy.slice(0, 500), /^cut\.json:1:\d+: not valid JSON/),
  );
  await t.step(
    "a count of the wrong type",
    () => refuse("typed.json", legacy.replace('"completed": 200', '"completed": "200"'), /typed\.json: completed: /),
  );
  await t.step(
    "a missing duration",
    () => refuse("nodur.json", legacy.replace(/"duration": [0-9.]+, /, ""), /nodur\.json: duration: /),
  );
  await t.step("per-request arrays of different lengths", () => {
    const o = {
      ...JSON.parse(legacy),
      input_lens: [1, 2],
      output_lens: [3],
      ttfts: [0.1, 0.2],
      itls: [[], []],
      errors: ["", ""],
    };
    return refuse("arrays.json", JSON.stringify(o), /arrays\.json: output_lens: 1 entries, but ttfts has 2/);
  });
  await t.step(
    "an llm-d report of another tool",
    () =>
      refuse(
        "other.yaml",
        Deno.readTextFileSync(REPORT).replace("tool: vllm-benchmark", "tool: guidellm"),
        /tool "guidellm", not/,
      ),
  );
  await t.step("two files at once", async () => {
    await assert.rejects(
      () => readVllmBench([LEGACY, FIXTURE]),
      (e) => e instanceof InputError && /exactly one/.test(e.message),
    );
  });
});

Deno.test("parseVllmBench() rebuilds requests from the --save-detailed arrays, failed ones included", async (t) => {
  const base = JSON.parse(Deno.readTextFileSync(FIXTURE));
  const detailed = {
    ...base,
    completed: 1,
    failed: 2,
    input_lens: [100, 50, 70],
    output_lens: [4, 0, 0],
    ttfts: [0.25, 0, 0],
    itls: [[0.01, 0.02, 0.03], [], []],
    latencies: [0.3125, 0, 0],
    start_times: [1000.5, 1000.75, 1001],
    generated_texts: ["abcd", "", ""],
    errors: ["", "Too Many Requests", ""],
  };
  const run = parseVllmBench(sourceText("detailed.json", JSON.stringify(detailed)));
  await t.step("seconds become ms; e2e from latencies; send times on the tool's own clock", () => {
    assert.equal(run.summary_only, false);
    assert.equal(run.requests.length, 3);
    const r = run.requests[0]!;
    assert.equal(r.outcome, "ok");
    assert.equal(r.ttft_ms, 250); // 0.25 s
    assert.equal(r.e2e_ms, 312.5); // latencies[0] 0.3125 s
    assert.deepEqual(r.itl_ms, [10, 20, 30]);
    assert.equal(r.sent_clock_ms, 1000500);
    assert.equal(r.sent_epoch_ms, null);
    assert.deepEqual([r.input_tokens, r.output_tokens], [100, 4]);
  });
  await t.step("a failure with an error text, and one recognised by ttft 0, no chunk and no output", () => {
    assert.deepEqual(run.requests.map((q) => q.outcome), ["ok", "error", "error"]);
    assert.equal(run.requests[1]!.tool_status, "Too Many Requests");
    assert.equal(run.requests[2]!.tool_status, null);
    assert.deepEqual([run.requests[1]!.ttft_ms, run.requests[1]!.output_tokens, run.requests[1]!.input_tokens], [
      null,
      null,
      50,
    ]);
    assert.equal(run.notes.some((n) => /successful requests, but completed/.test(n)), false);
  });
  await t.step("latencies alone (newest vLLM without --save-detailed) are no requests, and say so", () => {
    const summary = { ...base, latencies: [0.5, 0.25], queue_times: [0, 0] };
    const run = parseVllmBench(sourceText("latest.json", JSON.stringify(summary)));
    assert.deepEqual([run.summary_only, run.requests.length], [true, 0]);
    assert.match(run.notes.join("\n"), /latencies \(2 entries\) and queue_times are kept/);
  });
  await t.step("without latencies (vllm before start_times), e2e is ttft + Σ itls", () => {
    const { latencies: _l, start_times: _s, ...older } = detailed;
    const r = parseVllmBench(sourceText("older.json", JSON.stringify(older))).requests[0]!;
    assert.equal(r.e2e_ms, 310); // 250 + 10 + 20 + 30
    assert.equal(r.sent_clock_ms, undefined);
  });
});
