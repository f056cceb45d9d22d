import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { loadSourceTexts, sourceText } from "../../../importers/sources/_source_text.ts";
import { readLlmperf } from "../../../importers/sources/llmperf.ts";
import { parsePyNumberDict } from "../../../importers/sources/python_literal.ts";
import { npPercentile } from "../../../testing/peer_exports/_rows.ts";

/** The real files (ray-project/llmperf-leaderboard raw_data, ../shared/data/peers/README.md), read in place. */
const DIR = fileURLToPath(new URL("../../../../shared/data/peers/llmperf/", import.meta.url));
const individual = (n: string) => `${DIR}individual/${n}.json`;
const summary = (n: string) => `${DIR}summary/${n}.json`;

/**
 * Derived with python3 from each pair: ind = json.load(individual), s = json.load(summary),
 * ok = [r for r in ind if r["error_code"] is None]:
 *   len(ind), len(ok), len(ind) − len(ok), ind[0]["ttft_s"], s["results_ttft_s_mean"],
 *   s["results_end_to_end_latency_s_quantiles_p99"], sum(r["number_output_tokens"] for r in ok),
 *   s["results_mean_output_throughput_token_per_s"]
 */
const RUNS = {
  bedrock_70b: {
    n: 150,
    ok: 101,
    errors: 49,
    firstTtftS: 0.6138388380004471,
    ttftMeanS: 0.40837363779203295,
    e2eP99S: 8.09341601000051,
    okOutputTokens: 15125,
    outputThroughput: 62.867056292903534,
  },
  groq_70b: {
    n: 150,
    ok: 150,
    errors: 0,
    firstTtftS: 0.297977801412344,
    ttftMeanS: 0.22786034579078357,
    e2eP99S: 0.9922714155726133,
    okOutputTokens: 22500,
    outputThroughput: 441.84737788500206,
  },
} as const;

Deno.test("readLlmperf() reads every real individual-responses and summary pair", async (t) => {
  for (const [name, x] of Object.entries(RUNS)) {
    const run = readLlmperf(await loadSourceTexts([individual(name), summary(name)]));
    await t.step(`${name}: ${x.n} requests, ${x.errors} errors, one closed-loop stage of concurrency 5`, () => {
      assert.equal(run.summary_only, false);
      assert.equal(run.requests.length, x.n);
      assert.equal(run.requests.filter((r) => r.outcome === "error").length, x.errors);
      assert.equal(run.requests.filter((r) => r.outcome === "ok").length, x.ok);
      assert.deepEqual(run.stages, [{
        name: "concurrency 5",
        rate_rps: null,
        concurrency: 5,
        start_epoch_ms: null,
        end_epoch_ms: null,
        duration_s: null,
        totals: { ok: x.ok, error: x.errors, cancelled: null, incomplete: null },
      }]);
      assert.equal(run.requests[0]!.ttft_ms, x.firstTtftS * 1000);
      assert.ok(run.requests.every((r) => r.sent_epoch_ms === null && r.itl_ms === null));
      assert.equal(run.tool_version, "results format 2023-08-31");
    });
    await t.step(`${name}: the tool's headlines, and the records recompute them`, () => {
      const h = (key: string) => run.headlines.find((y) => y.key === key)!.value!;
      assert.equal(h("results_ttft_s_mean"), x.ttftMeanS);
      assert.equal(h("results_end_to_end_latency_s_quantiles_p99"), x.e2eP99S);
      const ok = run.requests.filter((r) => r.outcome === "ok");
      const ttftMean = ok.reduce((s, r) => s + r.ttft_ms!, 0) / ok.length / 1000;
      assert.ok(Math.abs(ttftMean - x.ttftMeanS) < 1e-12); // the tool's mean is over rows without error only
      // numpy's linear-interpolation p99 of the ok records' e2e, as the tool's pandas quantile(0.99) takes it
      const e2e = ok.map((r) => r.e2e_ms! / 1000).sort((a, b) => a - b);
      assert.ok(Math.abs(npPercentile(e2e, 99) - x.e2eP99S) < 1e-12);
      assert.equal(ok.reduce((s, r) => s + r.output_tokens!, 0), x.okOutputTokens);
      // The wall time the two rates share: 15125 / 62.867056292903534 = 240.587… s (bedrock).
      const wall = x.okOutputTokens / x.outputThroughput;
      assert.ok(Math.abs(h("results_num_completed_requests_per_min") - x.ok / wall * 60) < 1e-9);
      assert.ok(run.notes.some((n) => n.includes(`= ${wall.toFixed(3)} s`)));
      // The per-minute rate is the tool's scalar, not the "min" statistic of a metric named "num_completed_requests_per".
      const perMin = run.headlines.find((y) => y.key === "results_num_completed_requests_per_min")!;
      assert.equal(perMin.unit, "req/min");
      assert.match(perMin.definition!, /results_num_completed_requests \/ \(end − start of the whole test/);
    });
  }
});

Deno.test("readLlmperf() keeps bedrock's error rows: labels, unnormalised ITL under its own name", async () => {
  const run = readLlmperf(await loadSourceTexts([individual("bedrock_70b"), summary("bedrock_70b")]));
  const first = run.requests[0]!;
  // python3: ind[0] = {"error_code": -100, "error_msg": "Output too few tokens 102", "inter_token_latency_s": 5.0429…}
  assert.equal(first.tool_status, "-100 Output too few tokens 102");
  assert.equal(first.http_status, null);
  assert.equal(first.tool_metrics["llmperf.inter_token_latency_error_row_ms"], 5042.951921001077);
  assert.equal(first.tool_metrics["llmperf.inter_token_latency_ms"], undefined);
  const code = run.headlines.find((h) => h.key === "results_error_code_frequency[-100.0]");
  assert.equal(code?.value, 49); // the summary's "{-100.0: 49}"
  assert.ok(run.notes.some((n) => /GEN_TEXT/.test(n)));
  assert.ok(run.notes.some((n) => /written as strings/.test(n))); // results_number_input_tokens_min: "550"
  assert.equal(run.headlines.find((h) => h.key === "results_number_input_tokens_min")?.value, 550);
});

Deno.test("readLlmperf() reads each real file alone", async (t) => {
  for (const name of Object.keys(RUNS) as (keyof typeof RUNS)[]) {
    await t.step(`${name}: summary alone is summary-only with the tool's totals`, async () => {
      const run = readLlmperf(await loadSourceTexts([summary(name)]));
      assert.equal(run.summary_only, true);
      assert.deepEqual(run.stages[0]!.totals, {
        ok: RUNS[name].ok,
        error: RUNS[name].errors,
        cancelled: null,
        incomplete: null,
      });
      assert.equal(run.lacks[0]!.field, "per-request records");
    });
    await t.step(`${name}: individual alone counts its own rows`, async () => {
      const run = readLlmperf(await loadSourceTexts([individual(name)]));
      assert.equal(run.stages[0]!.name, "run");
      assert.equal(run.stages[0]!.totals.error, RUNS[name].errors);
      assert.equal(run.headlines.length, 0);
    });
  }
});

Deno.test("parsePyNumberDict() reads the error-code frequency string without evaluating it", () => {
  assert.deepEqual(parsePyNumberDict("{-100.0: 49}"), [{ key: "-100.0", value: 49 }]);
  assert.deepEqual(parsePyNumberDict("{}"), []);
  assert.deepEqual(parsePyNumberDict("{np.float64(429.0): np.int64(3), 500: 2,}"), [
    { key: "429.0", value: 3 },
    { key: "500", value: 2 },
  ]);
  assert.throws(() => parsePyNumberDict("{__import__('os'): 1}"), SyntaxError);
  assert.throws(() => parsePyNumberDict("{-100.0: 49"), /expected ',' or '}'/);
});

Deno.test("readLlmperf() refuses malformed and truncated files, naming the file and the record", async (t) => {
  const [ind, sum] = await loadSourceTexts([individual("bedrock_70b"), summary("bedrock_70b")]);
  const fails = (files: ReturnType<typeof sourceText>[], pattern: RegExp) =>
    assert.throws(() => readLlmperf(files), (e: unknown) => e instanceof InputError && pattern.test(e.message));
  await t.step("the individual file cut in the middle: file, line and column", () => {
    fails([sourceText("ind.json", ind!.text.slice(0, 60_000))], /^ind\.json:\d+:\d+: not valid JSON/);
  });
  await t.step("a record whose ttft_s is a string names it", () => {
    const recs = JSON.parse(ind!.text);
    recs[7].ttft_s = "0.5";
    fails([sourceText("ind.json", JSON.stringify(recs))], /ind\.json: \[7\]\.ttft_s/);
  });
  await t.step("a record without error_code names it", () => {
    const recs = JSON.parse(ind!.text);
    delete recs[3].error_code;
    fails([sourceText("ind.json", JSON.stringify(recs))], /\[3\]\.error_code/);
  });
  await t.step("an error-code frequency that is not a dict literal names the key", () => {
    const s = JSON.parse(sum!.text);
    s.results_error_code_frequency = "Counter({-100: 49})";
    fails([sourceText("sum.json", JSON.stringify(s))], /sum\.json: results_error_code_frequency: expected '\{'/);
  });
  await t.step("a summary without results_num_requests_started names it", () => {
    const s = JSON.parse(sum!.text);
    delete s.results_num_requests_started;
    fails([sourceText("sum.json", JSON.stringify(s))], /results_num_requests_started/);
  });
});
