import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readAiperf } from "../../../importers/sources/aiperf.ts";
import { headlineRecipe, ruleEntry } from "../../../analysis/audit/tool_rules.ts";
import { asHeadlineSource, recompute } from "./_rules_support.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The real files (../shared/data/peers/README.md), read in place. */
const PEERS = join(ROOT, "../shared/data/peers/aiperf");
const KIMI = ["profile_export.jsonl", "profile_export_aiperf.json"].map((f) =>
  join(PEERS, "inferencex_kimik2.7_conc1", f)
);
const RUN1 = ["profile_export.jsonl", "profile_export_aiperf.json"].map((f) => join(PEERS, "run1", f));

Deno.test("AIPerf 0.8 rules on InferenceX's real 0.8.0 run: rates over the profiling phase, not benchmark_duration", async (t) => {
  const run = await readAiperf(KIMI);
  const src = asHeadlineSource(run);
  await t.step("the version read from the file picks the AIPerf 0.8 entry, with no caveat", () => {
    assert.equal(run.tool_version, "0.8.0");
    const r = headlineRecipe("aiperf", "request_throughput.avg", run.tool_version)!;
    assert.equal(r.rules.entry, "rule entry AIPerf 0.8 (version read from the file: 0.8.0)");
    assert.equal(r.rules.window, "tool_duration");
    assert.equal(r.rules.caveat, undefined);
  });
  await t.step("the stage's duration is the phase's end_time − start_time; the definitions say so", () => {
    // end_time 10:16:17.827349 − start_time 09:15:47.824596 = 3630.002753 s (benchmark_duration is 3542.81860992 s)
    assert.equal(run.stages.find((s) => s.name === "profiling")!.duration_s, 3630.002753);
    const def = run.headlines.find((h) => h.key === "request_throughput.avg")!.definition;
    assert.match(def, /end_time − start_time/);
    assert.doesNotMatch(def, /request_count \/ benchmark_duration/);
  });
  await t.step("request_throughput 0.0537190 = 195 / 3630.002753 s is reproduced; 195 / 3542.8 s is not it", () => {
    const r = recompute(src, "request_throughput.avg", "profiling");
    // python3: 195 / 3630.002753 = 0.0537189675...; the tool's 0.053718967521881635 (195 / 3630.002753135)
    assert.equal(r.recomputed!.n, 195);
    assert.ok(Math.abs(r.recomputed!.value! - 0.053718967521881635) < 1e-9);
    assert.equal(r.recomputed!.match, true);
    // first send → last response = max_response − min_request = 3542.8186 s: 195 / 3542.8186 = 0.0550409, searched
    // and not matching (the old rule's "NOT REPRODUCED (0.05504 vs 0.05372)")
    const send = r.choices.find((c) => c.choice === "denominator successful, window first send → last response")!;
    assert.ok(Math.abs(send.value! - 0.0550409) < 1e-6);
    assert.equal(send.match, false);
    // the tool's own numbers: 195 / 3630.002753 s
    assert.equal(r.consistency[0]!.match, true);
  });
  await t.step("output_token_throughput 58.682 = 213017 tokens / 3630.002753 s", () => {
    const r = recompute(src, "output_token_throughput.avg", "profiling");
    // python3: sum(usage_completion_tokens of the 195 profiling records) = 213017; 213017 / 3630.002753 = 58.682325
    assert.ok(Math.abs(r.recomputed!.value! - 58.68232463901877) < 1e-6);
    assert.equal(r.recomputed!.match, true);
  });
  await t.step("0.8's tags: time_to_first_token, request_latency, inter_token_latency are known and reproduce", () => {
    // python3 over the 195 profiling records, numpy.percentile (linear):
    //   time_to_first_token p99 = 92945.99563524, p50 = 2148.041658; request_latency p50 = 9408.376876;
    //   inter_token_latency p50 = 13.036789106382978 (the file's values)
    for (
      const [key, want] of [
        ["time_to_first_token.p99", 92945.99563524],
        ["time_to_first_token.p50", 2148.041658],
        ["request_latency.p50", 9408.376876],
        ["request_latency.avg", 25463.397356989743],
        ["inter_token_latency.p50", 13.036789106382978],
      ] as const
    ) {
      const r = recompute(src, key, "profiling");
      assert.ok(r.recipe, `${key}: a rule is known`);
      assert.equal(r.recomputed!.n, 195, key);
      assert.ok(Math.abs(r.recomputed!.value! - want) <= 1e-6 * want, `${key}: ${r.recomputed!.value}`);
    }
  });
  await t.step("the warm-up record is its own stage: not in the profiling statistics", () => {
    assert.equal(run.requests.filter((q) => q.stage === "warmup").length, 1);
    assert.equal(recompute(src, "request_count.avg", "profiling").recomputed!.value, 195);
  });
});

Deno.test("AIPerf < 0.8 rules on the early records-form run1: rates over benchmark_duration", async () => {
  const run = await readAiperf(RUN1);
  const src = asHeadlineSource(run);
  assert.equal(run.tool_version, null);
  const r = recompute(src, "records.request_throughput.avg", "profiling");
  // no version in the file: its records form picks the < 0.8 entry, no caveat
  assert.equal(
    r.recipe!.rules.entry,
    "rule entry AIPerf < 0.8 (records form) (no version in the file; taken from the file's form)",
  );
  assert.equal(r.recipe!.rules.caveat, undefined);
  // python3: 89 successful / (max response − min send = 9.317788951 s) = 9.551622 (the tool's 9.551622221540914);
  // the phase's end_time − start_time would be 9.327762 s → 9.5414: not this version's rule
  assert.ok(Math.abs(r.recomputed!.value! - 9.551622221540914) < 1e-5);
  assert.equal(r.recomputed!.match, true);
});

Deno.test("ruleEntry: a version outside every AIPerf entry gets the nearest, with a one-line caveat naming both", () => {
  const c = ruleEntry("aiperf", "0.9.1")!;
  assert.equal(c.entry.label, "AIPerf 0.8");
  assert.match(c.caveat!, /^aiperf 0\.9\.1 is outside the known rule entries: the nearest, AIPerf 0\.8 \(checked on/);
  assert.equal(ruleEntry("aiperf", "0.5.0")!.entry.label, "AIPerf < 0.8 (records form)");
  // a flat key with no version: the form points to 0.8, said in the disclosure
  const flat = headlineRecipe("aiperf", "request_throughput.avg", null)!;
  assert.equal(flat.rules.window, "tool_duration");
  assert.match(flat.rules.entry!, /no version in the file; taken from the file's form/);
});
