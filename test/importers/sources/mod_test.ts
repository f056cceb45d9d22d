import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { readSource } from "../../../importers/sources/mod.ts";

const PEERS = fileURLToPath(new URL("../../../../shared/data/peers/", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../../data/import-examples/", import.meta.url));

Deno.test("readSource() reads files from disk and dispatches on the tool, hashing each file", async (t) => {
  await t.step("llmperf: the pair's sha256 as listed in ../shared/data/peers/README.md", async () => {
    const run = await readSource("llmperf", [`${PEERS}llmperf/individual/groq_70b.json`]);
    assert.equal(run.tool, "llmperf");
    // README.md: 948a9414793e18bdbf57969ec5f5db03bf6d2e4ecd88847cfcd75e4515b757a4  llmperf/individual/groq_70b.json
    assert.equal(run.files[0]!.sha256, "948a9414793e18bdbf57969ec5f5db03bf6d2e4ecd88847cfcd75e4515b757a4");
  });
  await t.step("mlperf-loadgen and inference-perf and generic", async () => {
    const mlperf = await readSource("mlperf-loadgen", [
      `${PEERS}mlperf-inference/AMD_8xMI300X_llama2-70b-99.9_Interactive_run_1/mlperf_log_summary.txt`,
    ]);
    // README.md: 5fd29cf3…c3f  mlperf-inference/…/mlperf_log_summary.txt
    assert.equal(mlperf.files[0]!.sha256, "5fd29cf3d80f008b7b47c2d85d499f2c6e24d1a0c53eae5cd18463698f4a8a3f");
    const ip = await readSource("inference-perf", [
      `${PEERS}inference-perf/kubecon-na-2025_vllm+batch_size/summary_lifecycle_metrics.json`,
    ]);
    assert.equal(ip.files[0]!.sha256, "e0b3438af9d2bc8beeff392e9de792dcc529e9e4d6dd104d2e9322745a756dcb");
    const generic = await readSource("generic", [`${EXAMPLES}generic_requests.csv`, `${EXAMPLES}generic_mapping.json`]);
    assert.equal(generic.requests.length, 6);
  });
  await t.step("a missing file and a tool read elsewhere are InputErrors naming them", async () => {
    await assert.rejects(
      readSource("llmperf", ["nope/x.json"]),
      (e: unknown) => e instanceof InputError && /^nope\/x\.json: cannot read/.test(e.message),
    );
    await assert.rejects(
      readSource("guidellm", ["x.json"]),
      (e: unknown) => e instanceof InputError && /^guidellm: no reader/.test(e.message),
    );
  });
});
