import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../support/run_cli.ts";
import { auditHeadline, type HeadlineRow, type HeadlineSource } from "../../../analysis/audit/headline_audit.ts";
import { headlineRecipe, percentileBy } from "../../../analysis/audit/tool_rules.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PEERS = fileURLToPath(new URL("../../../../shared/data/peers/", import.meta.url));
const importCli = (...args: string[]) =>
  runCli(join(ROOT, "importers/cli.ts"), args, ["--allow-read", "--allow-write"]);
const auditCli = (...args: string[]) =>
  runCli(join(ROOT, "analysis/cli/audit.ts"), args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

Deno.test("percentileBy: numpy's linear interpolation and the closest-rank methods", () => {
  const xs = [10, 20, 30, 40];
  // linear: h = (4 − 1) · 0.5 = 1.5 → 20 + 0.5 · (30 − 20) = 25
  assert.equal(percentileBy(xs, 0.5, "linear"), 25);
  // nearest rank: ⌈0.5 · 4⌉ = 2 → the 2nd = 20; lower x[⌊1.5⌋] = 20; higher x[⌈1.5⌉] = 30
  assert.equal(percentileBy(xs, 0.5, "nearest_rank"), 20);
  assert.equal(percentileBy(xs, 0.5, "lower"), 20);
  assert.equal(percentileBy(xs, 0.5, "higher"), 30);
  // linear p99: h = 3 · 0.99 = 2.97 → 30 + 0.97 · 10 = 39.7
  assert.ok(Math.abs(percentileBy(xs, 0.99, "linear") - 39.7) < 1e-12);
});

Deno.test("headlineRecipe: a key the table does not know is not recomputed", () => {
  assert.equal(headlineRecipe("aiperf", "records.ttst.p50"), null);
  assert.equal(headlineRecipe("vllm-bench-serve", "request_goodput"), null);
  assert.equal(headlineRecipe("aiperf", "records.ttft.p99")?.kind, "latency_percentile");
});

const row = (ok: boolean, sent: number, first: number | null, done: number | null, out = 5): HeadlineRow => ({
  stage: "s",
  ok,
  scheduled_ms: sent - 100,
  sent_ms: sent,
  first_token_ms: first,
  completed_ms: done,
  output_tokens: ok ? out : null,
});
// Three successful requests and one cancelled; the window runs 0 → 4000 ms (first send → last response).
const SRC: HeadlineSource = {
  tool: "aiperf",
  tool_version: null,
  headlines: [
    { key: "records.request_throughput.avg", stage: "s", value: 0.75, unit: "requests/sec", definition: "d" },
    { key: "records.ttft.p50", stage: "s", value: 200, unit: "ms", definition: "d" },
  ],
  stages: [{ name: "s", tool_duration_s: 4, totals: { ok: 3, error: 0 } }],
  rows: [
    row(true, 0, 100, 1000),
    row(true, 1000, 1200, 2000),
    row(true, 2000, 2300, 4000),
    row(false, 3000, null, null),
  ],
  scheduled_from: "schedule",
  lacks: [],
};

Deno.test("auditHeadline: a request rate under the tool's rules, under ours, and the choices that reproduce it", () => {
  const r = auditHeadline(SRC, { headline: "records.request_throughput.avg", stage: null }, {
    value: 0.5,
    policy: "p.json",
  });
  // tool: 3 successful / (4000 − 0) ms = 0.75 req/s
  assert.equal(r.recomputed?.value, 0.75);
  assert.equal(r.recomputed?.match, true);
  // ours: 4 offered / 4 s = 1; accepted goodput as given
  assert.deepEqual(r.ours.map((c) => c.value), [1, 0.5]);
  // windows: tool 4 s, send 4 s, schedule (−100 → 4000) 4.1 s → successful 0.75, 0.75, 3/4.1 = 0.7317 (1 % of 0.75
  // = 0.0075: off); every record 1, 1, 0.9756: off → 2 of 6 reproduce
  assert.equal(r.searched, 6);
  assert.equal(r.reproducing.length, 2);
});

Deno.test("auditHeadline: a TTFT percentile moves with the method and the clock's start", () => {
  const r = auditHeadline(SRC, { headline: "records.ttft.p50", stage: "s" });
  // from send, successful: TTFTs 100, 200, 300 → linear h = 2 · 0.5 = 1 → 200
  assert.equal(r.recomputed?.value, 200);
  // ours: nearest rank ⌈0.5 · 3⌉ = 2 → 200; offered: [100, 200, 300, ∞] → ⌈0.5 · 4⌉ = 2 → 200;
  // from schedule (100 ms earlier): 200, 300, 400 → nearest rank 300
  assert.deepEqual(r.ours.map((c) => c.value), [200, 200, 300]);
});

Deno.test("auditHeadline: a summary-only source is checked against the tool's own numbers only", () => {
  const r = auditHeadline({ ...SRC, rows: null }, { headline: "records.request_throughput.avg", stage: "s" });
  assert.equal(r.recomputed, null);
  assert.match(r.why_not!, /summary-only source has no per-request data/);
  // the tool's totals: 3 ok / 4 s = 0.75
  assert.equal(r.consistency[0]!.value, 0.75);
});

Deno.test("deno task import + audit: a peer's published headline, end to end", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const claims = join(ROOT, "data/claims");

  await t.step("AIPerf run1: request_throughput and ttft p99 are reproduced from the per-request records", async () => {
    const dir = join(tmp, "aiperf");
    const i = await importCli(
      "--from",
      "aiperf",
      `${PEERS}aiperf/run1/profile_export.jsonl`,
      `${PEERS}aiperf/run1/profile_export_aiperf.json`,
      "--out",
      dir,
    );
    assert.equal(i.code, 0, i.stderr);
    const a = await auditCli(dir, "--claim", join(claims, "aiperf-run1-request-throughput.json"), "--json");
    assert.equal(a.code, 0, a.stderr);
    const r = JSON.parse(a.stdout);
    // python3: 89 lines without error; (max response − min send) = 9.317788951 s → 89 / 9.317788951 = 9.551622
    assert.equal(r.recomputed.n, 89);
    assert.ok(Math.abs(r.recomputed.value - 9.551622) < 1e-4);
    // ours: 100 records offered / 9.3177888 s = 10.73216
    assert.ok(Math.abs(r.ours[0].value - 10.73216) < 1e-3);
    const p = JSON.parse(
      (await auditCli(dir, "--claim", join(claims, "aiperf-run1-ttft-p99.json"), "--json")).stdout,
    );
    // python3: numpy.percentile(ttft of the 89 successful, 99) = 3833.38940004 (the tool's 3833.3894000399996)
    assert.ok(Math.abs(p.recomputed.value - 3833.3894) < 1e-2);
    assert.equal(p.recomputed.match, true);
    // nearest rank ⌈0.99 · 89⌉ = 89 → the largest TTFT, 3853.857423 (the tool's max)
    assert.ok(Math.abs(p.ours[0].value - 3853.857) < 1e-2);
  });

  await t.step("GuideLLM stripped: 1 of 47 records kept, the headline is not reproduced from them", async () => {
    const dir = join(tmp, "guidellm");
    const i = await importCli(
      "--from",
      "guidellm",
      `${PEERS}guidellm/f1dfdc6_main/benchmarks_stripped.json`,
      "--out",
      dir,
    );
    assert.equal(i.code, 0, i.stderr);
    const a = await auditCli(dir, "--claim", join(claims, "guidellm-stripped-request-rate.json"));
    assert.equal(a.code, 0, a.stderr);
    // 1 record / 29.997201 s = 0.0333364 vs 1.548: not reproduced
    assert.match(a.stdout, /-> 0\.0333364 \(n = 1\)/);
    assert.match(a.stdout, /keeps 1 successful record\(s\) of the 46 the tool counted/);
    assert.match(a.stdout, /^NOT REPRODUCED/m);
    // the tool's totals: 46 / 29.997201442718506 = 1.53348
    assert.match(a.stdout, /46 \/ 29\.997201442718506 s -> 1\.53348/);
  });

  await t.step("vLLM summary only: request_throughput against completed / duration", async () => {
    const dir = join(tmp, "vllm");
    const file = `${PEERS}vllm-bench-serve/llm-d-benchmark_fixture/vllm_benchmark_results.json`;
    assert.equal((await importCli("--from", "vllm-bench-serve", file, "--out", dir)).code, 0);
    const a = await auditCli(dir, "--claim", join(claims, "vllm-fixture-request-throughput.json"), "--json");
    assert.equal(a.code, 0, a.stderr);
    const r = JSON.parse(a.stdout);
    assert.equal(r.recomputed, null);
    // completed 198 / duration 39.0063 s = 5.076103 (the tool's 5.0761)
    assert.ok(Math.abs(r.consistency[0].value - 5.076103) < 1e-5);
    assert.equal(r.consistency[0].match, true);
  });

  await t.step("a headline claim with no import folder: exit 2", async () => {
    const a = await auditCli("--claim", join(claims, "vllm-fixture-request-throughput.json"));
    assert.equal(a.code, 2);
    assert.match(a.stderr, /a headline claim needs its import folder/);
  });
  Deno.removeSync(tmp, { recursive: true });
});
