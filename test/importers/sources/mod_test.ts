import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { readSource } from "../../../importers/sources/mod.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PEERS = join(ROOT, "../shared/data/peers");

Deno.test("readSource() picks the reader by tool name", async (t) => {
  await t.step("vllm-bench-serve", async () => {
    const run = await readSource("vllm-bench-serve", [
      join(PEERS, "vllm-bench-serve/llm-d-benchmark_fixture/vllm_benchmark_results.json"),
    ]);
    assert.deepEqual([run.tool, run.stages[0]!.totals.ok], ["vllm-bench-serve", 198]); // jq .completed → 198
  });
  await t.step("guidellm", async () => {
    const run = await readSource("guidellm", [join(PEERS, "guidellm/llm-d-benchmark_fixture/guidellm_report_v2.json")]);
    assert.deepEqual([run.tool, run.stages.length], ["guidellm", 2]); // two benchmarks
  });
  await t.step("aiperf", async () => {
    const run = await readSource("aiperf", [join(PEERS, "aiperf/run1/profile_export.jsonl")]);
    assert.deepEqual([run.tool, run.requests.length], ["aiperf", 100]); // wc -l → 100
  });
  await t.step("a file of another tool is refused with the reason, not misread", async () => {
    // a GuideLLM report given as AIPerf: its extension is .json, but it holds no AIPerf metric dicts
    await assert.rejects(
      () => readSource("aiperf", [join(PEERS, "guidellm/a1fe883/benchmarks_stripped.json")]),
      (e) => e instanceof InputError && /not an AIPerf aggregate/.test(e.message),
    );
    // an AIPerf aggregate given as vLLM's: no duration, no completed
    await assert.rejects(
      () => readSource("vllm-bench-serve", [join(PEERS, "aiperf/run1/profile_export_aiperf.json")]),
      (e) => e instanceof InputError && /duration: /.test(e.message) && /completed: /.test(e.message),
    );
  });
  await t.step("a missing file is an InputError naming it", async () => {
    await assert.rejects(
      () => readSource("guidellm", ["/nonexistent/benchmarks.json"]),
      /\/nonexistent\/benchmarks\.json: cannot read/,
    );
  });
});

const PEER_FILES = fileURLToPath(new URL("../../../../shared/data/peers/", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../../data/import-examples/", import.meta.url));

Deno.test("readSource() hashes each file it reads (the sha256 listed in ../shared/data/peers/README.md)", async (t) => {
  await t.step("llmperf", async () => {
    const run = await readSource("llmperf", [`${PEER_FILES}llmperf/individual/groq_70b.json`]);
    assert.equal(run.tool, "llmperf");
    // README.md: 948a9414793e18bdbf57969ec5f5db03bf6d2e4ecd88847cfcd75e4515b757a4  llmperf/individual/groq_70b.json
    assert.equal(run.files[0]!.sha256, "948a9414793e18bdbf57969ec5f5db03bf6d2e4ecd88847cfcd75e4515b757a4");
  });
  await t.step("mlperf-loadgen and inference-perf and generic", async () => {
    const mlperf = await readSource("mlperf-loadgen", [
      `${PEER_FILES}mlperf-inference/AMD_8xMI300X_llama2-70b-99.9_Interactive_run_1/mlperf_log_summary.txt`,
    ]);
    // README.md: 5fd29cf3…c3f  mlperf-inference/…/mlperf_log_summary.txt
    assert.equal(mlperf.files[0]!.sha256, "5fd29cf3d80f008b7b47c2d85d499f2c6e24d1a0c53eae5cd18463698f4a8a3f");
    const ip = await readSource("inference-perf", [
      `${PEER_FILES}inference-perf/kubecon-na-2025_vllm+batch_size/summary_lifecycle_metrics.json`,
    ]);
    assert.equal(ip.files[0]!.sha256, "e0b3438af9d2bc8beeff392e9de792dcc529e9e4d6dd104d2e9322745a756dcb");
    const generic = await readSource("generic", [`${EXAMPLES}generic_requests.csv`, `${EXAMPLES}generic_mapping.json`]);
    assert.equal(generic.requests.length, 6);
  });
  await t.step("a missing file and an unknown tool are InputErrors naming them", async () => {
    await assert.rejects(
      readSource("llmperf", ["nope/x.json"]),
      (e: unknown) => e instanceof InputError && /^nope\/x\.json: cannot read/.test(e.message),
    );
    await assert.rejects(
      readSource("no-such-tool" as never, ["x.json"]),
      (e: unknown) => e instanceof InputError && /^no reader for the tool "no-such-tool"/.test(e.message),
    );
  });
});
