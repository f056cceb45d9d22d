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
