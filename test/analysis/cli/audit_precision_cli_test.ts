/**
 * The audit never accuses a publisher wrongly (issue 28 §2), on the real published files of ../shared/data/peers:
 * a headline the import does not hold is an input error naming those it holds (never `= NaN`); GuideLLM's documented
 * key form finds the stored one; a value is reproduced only at the precision it was published at, and rule choices
 * that give it alike are said to be indistinguishable; the first line is the verdict.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../support/run_cli.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PEERS = fileURLToPath(new URL("../../../../shared/data/peers/", import.meta.url));
const importCli = (...args: string[]) =>
  runCli(join(ROOT, "importers/cli.ts"), args, ["--allow-read", "--allow-write"]);
const auditCli = (...args: string[]) =>
  runCli(join(ROOT, "analysis/cli/audit.ts"), args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

Deno.test("audit on the peers' real files: errors, key forms, published precision, the verdict line", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const claim = (name: string, body: Record<string, unknown>) => {
    const f = join(tmp, name);
    Deno.writeTextFileSync(f, JSON.stringify({ source: "test", ...body }));
    return f;
  };
  const imported = async (name: string, tool: string, ...files: string[]) => {
    const dir = join(tmp, name);
    const r = await importCli("--from", tool, ...files.map((f) => PEERS + f), "--out", dir);
    assert.equal(r.code, 0, r.stderr);
    return dir;
  };

  await t.step("AIPerf 0.8.0 (InferenceX): a key the import does not hold is exit 2 naming what it holds", async () => {
    const dir = await imported(
      "aiperf08",
      "aiperf",
      "aiperf/inferencex_kimik2.7_conc1/profile_export.jsonl",
      "aiperf/inferencex_kimik2.7_conc1/profile_export_aiperf.json",
    );
    // 0.8.0 names the tag time_to_first_token; "records.ttft.p99" is the < 0.8 form. Before: "= NaN … NOT REPRODUCED", 0.
    const f = claim("ttft.json", { headline: "records.ttft.p99" });
    const r = await auditCli(dir, "--claim", f);
    assert.equal(r.code, 2, r.stdout);
    assert.equal(r.stdout, "");
    const line = r.stderr.split("\n")[0]!;
    assert.ok(line.startsWith(`error: ${f}: headline "records.ttft.p99" is not in the import;`), line);
    assert.match(line, /it holds 1205 headline\(s\): request_latency\.p99, time_to_first_token\.p99, /);
    assert.doesNotMatch(r.stderr, /NaN/);
  });

  await t.step(
    "GuideLLM: the documented key form metrics.<name>.successful.<stat> finds benchmarks[i]. …",
    async () => {
      const stripped = await imported("gstripped", "guidellm", "guidellm/f1dfdc6_main/benchmarks_stripped.json");
      const r = await auditCli(
        stripped,
        "--claim",
        claim("g.json", { headline: "metrics.requests_per_second.successful.mean", stage: "synchronous" }),
      );
      assert.equal(r.code, 0, r.stderr);
      // json.load(...)["benchmarks"][0]["metrics"]["requests_per_second"]["successful"]["mean"] = 1.5481806532737452
      assert.match(
        r.stdout,
        /^AUDIT: NOT RECOMPUTED — benchmarks\[0\]\.metrics\.requests_per_second\.successful\.mean = 1\.5481806532737452 req\/s \(stage synchronous\): the file keeps 1 successful record/,
      );
      // GuideLLM 0.8.0.dev18 (llm-d fixture), summary only, 2 benchmarks: the stage picks benchmarks[0]
      const v2 = await imported("g08", "guidellm", "guidellm/llm-d-benchmark_fixture/guidellm_report_v2.json");
      const p = await auditCli(
        v2,
        "--claim",
        claim("g2.json", {
          headline: "metrics.time_to_first_token_ms.successful.percentiles.p99",
          stage: "constant@2",
        }),
      );
      assert.equal(p.code, 0, p.stderr);
      assert.match(p.stdout, /^AUDIT: NOT RECOMPUTED — benchmarks\[0\]\.metrics\.time_to_first_token_ms/);
      // nothing was compared: no "compared" line, and the reason says there is nothing to check it against
      assert.match(p.stdout, /the tool writes no other number it can be checked against\n/);
      assert.doesNotMatch(p.stdout, /compared/);
    },
  );

  await t.step(
    "LLMPerf bedrock_70b: rule choices told apart at the published precision, or said not to be",
    async () => {
      const dir = await imported(
        "bedrock",
        "llmperf",
        "llmperf/individual/bedrock_70b.json",
        "llmperf/summary/bedrock_70b.json",
      );
      const audit = async (key: string) => {
        const r = await auditCli(dir, "--claim", claim(`${key}.json`, { headline: key }), "--json");
        assert.equal(r.code, 0, r.stderr);
        return JSON.parse(r.stdout);
      };
      // TTFT p90 = 0.4904335050014197 (16 digits). 101 records without error: (101 − 1) · 0.9 = 90 is whole, so linear,
      // nearest rank ⌈90.9⌉ = 91st, lower and higher are all the 91st smallest. Over the 150 records with a time, linear
      // gives 0.48875514, nearest rank and lower 0.48856866: they differ. At 1 % (±0.0049) all 8 "reproduced".
      const p90 = await audit("results_ttft_s_quantiles_p90");
      assert.equal(p90.verdict, "reproduced");
      assert.equal(p90.searched, 8);
      assert.equal(p90.reproducing.length, 5);
      assert.deepEqual(
        p90.choices.filter((c: { match: boolean }) => !c.match).map((c: { value: number }) => c.value.toFixed(8)),
        ["0.48875514", "0.48856866", "0.48856866"],
      );
      // e2e p99: every choice is the same record (the 100th of 101; no errored record has an e2e) — indistinguishable
      const text = (await auditCli(
        dir,
        "--claim",
        claim("e2e.json", { headline: "results_end_to_end_latency_s_quantiles_p99" }),
      )).stdout;
      assert.match(
        text.split("\n")[0]!,
        /^AUDIT: REPRODUCED at the published precision — results_end_to_end_latency_s_quantiles_p99 = 8\.09341601000051 s .*8 of 8 rule choices searched give it and cannot be told apart at the published precision \(they give the identical value from these records\)$/,
      );
      // a mean summed in another order differs in the 16th digit: within the arithmetic's 12 digits, stated
      const mean = await audit("results_end_to_end_latency_s_mean");
      assert.equal(mean.verdict, "reproduced");
      assert.match(mean.comparison.text, /floating-point arithmetic: 12 significant digits/);
    },
  );
  Deno.removeSync(tmp, { recursive: true });
});
