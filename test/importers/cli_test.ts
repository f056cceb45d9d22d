import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../support/run_cli.ts";
import { ImportedManifest } from "../../schema/imported_manifest.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import { runSloFile } from "../../analysis/cli/_args.ts";

const CLI = fileURLToPath(new URL("../../importers/cli.ts", import.meta.url));
const PEERS = fileURLToPath(new URL("../../../shared/data/peers/", import.meta.url));
/** The permissions of `deno task import` (deno.json). */
const importCli = (...args: string[]) => runCli(CLI, args, ["--allow-read", "--allow-write"]);

Deno.test("deno task import", async (t) => {
  const tmp = Deno.makeTempDirSync();

  await t.step("--help prints the usage and every tool", async () => {
    const r = await importCli("--help");
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^usage: npx deno task import FILE\.\.\. --from TOOL --out DIR/m);
    assert.match(r.stdout, /vllm-bench-serve, guidellm, aiperf, inference-perf, llmperf, mlperf-loadgen,\s+generic/);
  });

  await t.step("bad flags and files: exit 2 naming every problem at once, no stack trace", async () => {
    const r = await importCli("--from", "locust", join(tmp, "nope.json"));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: invalid input \(3 problems\):/);
    assert.match(r.stderr, /--from: expected vllm-bench-serve, .* otlp or genai-perf, got "locust"/);
    assert.match(r.stderr, /--out DIR is required/);
    assert.match(r.stderr, /nope\.json: cannot read/);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
  });

  await t.step("a real file cut in the middle: exit 2 naming the file and the line", async () => {
    const text = Deno.readTextFileSync(`${PEERS}aiperf/run1/profile_export.jsonl`);
    Deno.mkdirSync(join(tmp, "cut"));
    const cut = join(tmp, "cut", "profile_export.jsonl");
    // 100 lines; half the bytes hold 55 line ends (python3: text[: len(text) // 2].count("\n")), so line 56 is cut
    Deno.writeTextFileSync(cut, text.slice(0, text.length >> 1));
    const r = await importCli("--from", "aiperf", cut, "--out", join(tmp, "cut", "run"));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: .*cut\/profile_export\.jsonl: not an AIPerf profile_export\.jsonl/);
    assert.match(r.stderr, /cut\/profile_export\.jsonl:56\b/);
    assert.throws(() => Deno.statSync(join(tmp, "cut", "run")));
  });

  await t.step("a per-request file becomes a run folder; --json says what was written", async () => {
    const slo = join(tmp, "slo.json");
    Deno.writeTextFileSync(slo, JSON.stringify({ default: { e2e_ms: 1000, gates: [] } }));
    const out = join(tmp, "groq");
    const r = await importCli(
      "--from",
      "llmperf",
      `${PEERS}llmperf/individual/groq_70b.json`,
      "--out",
      out,
      "--slo",
      slo,
      "--json",
    );
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    // python3: len(json.load(f)) = 150, every error_code None
    assert.deepEqual([s.kind, s.tool, s.requests, s.outcomes, s.timeline.kind], [
      "run",
      "llmperf",
      150,
      { ok: 150 },
      "durations_only",
    ]);
    const names = [...Deno.readDirSync(out)].map((e) => e.name).sort();
    assert.deepEqual(names, [
      "attempts.csv",
      "attempts.parquet",
      "attempts.schema.json",
      "requests.csv",
      "requests.parquet",
      "requests.schema.json",
      "run.json",
      "slo.json",
      "tools.csv",
      "tools.parquet",
      "tools.schema.json",
    ]);
    const m = ImportedManifest.parse(JSON.parse(Deno.readTextFileSync(join(out, "run.json"))));
    // every file but run.json is hashed; the source file by its own sha256 (../shared/data/peers/README.md)
    assert.deepEqual(Object.keys(m.files).sort(), names.filter((n) => n !== "run.json"));
    assert.equal(m.source.files[0]!.sha256, "948a9414793e18bdbf57969ec5f5db03bf6d2e4ecd88847cfcd75e4515b757a4");
    // the policy given at import is the run's default for the analysis CLIs
    assert.equal(runSloFile(await loadRun(out, { onWarning: () => {} })), join(out, "slo.json"));
  });

  await t.step(
    "deno task analyze reads the import with the policy given at import, verified by its sha256",
    async () => {
      const analyze = (...args: string[]) =>
        runCli(fileURLToPath(new URL("../../analysis/cli/analyze.ts", import.meta.url)), args, [
          "--allow-read",
          "--allow-ffi",
          "--allow-env",
          "--allow-sys",
        ]);
      const out = join(tmp, "groq");
      const ok = await analyze(out);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^NOTE {4}IMPORTED RUN: requests written by llmperf/m);
      assert.match(ok.stdout, new RegExp(`SLO policy: ${out}/slo\\.json`));
      // python3: 148 of the 150 e2e ≤ 1000 ms; durations only: no rate ("-")
      assert.match(ok.stdout, /^all\s+150\s+150\s+150\s+148\s+-\s+-\s+0\.9867/m);
      Deno.writeTextFileSync(join(out, "slo.json"), JSON.stringify({ default: { e2e_ms: 1, gates: [] } }));
      const changed = await analyze(out);
      assert.equal(changed.code, 2);
      assert.match(changed.stderr, /slo\.json: sha256 [0-9a-f]{64} does not match run\.json slo\.sha256/);
    },
  );

  await t.step("the text summary names the source, the outcomes and what the source lacks", async () => {
    const out = join(tmp, "bedrock");
    const r = await importCli("--from", "llmperf", `${PEERS}llmperf/individual/bedrock_70b.json`, "--out", out);
    assert.equal(r.code, 0, r.stderr);
    // python3: 101 with error_code None, 49 with −100 (no HTTP status: transport_error)
    assert.match(r.stdout, /^imported 150 requests from llmperf/);
    assert.match(r.stdout, /outcomes: ok 101, transport_error 49/);
    assert.match(r.stdout, /NO TIME WINDOW/);
    assert.match(r.stdout, /- gates: /);
  });

  await t.step("an --out folder that is not empty is refused (exit 2), nothing overwritten", async () => {
    const r = await importCli(
      "--from",
      "llmperf",
      `${PEERS}llmperf/individual/groq_70b.json`,
      "--out",
      join(tmp, "groq"),
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--out .*groq: the folder exists and is not empty/);
  });

  await t.step("an --slo naming a class the import does not have is refused before anything is written", async () => {
    const slo = join(tmp, "design.json");
    Deno.writeTextFileSync(slo, JSON.stringify({ classes: { qa: { e2e_ms: 1 } }, default: { e2e_ms: 1000 } }));
    const out = join(tmp, "bad-slo");
    const r = await importCli(
      "--from",
      "llmperf",
      `${PEERS}llmperf/individual/groq_70b.json`,
      "--out",
      out,
      "--slo",
      slo,
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /design\.json: classes: qa; an imported run has the one class imported/);
    assert.throws(() => Deno.statSync(out));
  });

  await t.step("a summary becomes claims, and the output says so", async () => {
    const out = join(tmp, "vllm-claims");
    const r = await importCli(
      "--from",
      "vllm-bench-serve",
      `${PEERS}vllm-bench-serve/llm-d-benchmark_fixture/vllm_benchmark_results.json`,
      "--out",
      out,
    );
    assert.equal(r.code, 0, r.stderr);
    // python3: 33 keys ^(p[\d.]+|median)_(ttft|tpot|e2el)_ms$ of 63 headlines
    assert.match(r.stdout, /^SUMMARY ONLY: vllm-bench-serve .* so no run was written: its 63 headlines are claims in/);
    assert.match(r.stdout, /33 of them \(latency percentiles\) also as audit claim files/);
    assert.ok(Deno.statSync(join(out, "claims.json")).isFile);
    assert.throws(() => Deno.statSync(join(out, "run.json")));
    const j = await importCli(
      "--from",
      "vllm-bench-serve",
      `${PEERS}vllm-bench-serve/llm-d-benchmark_fixture/vllm_benchmark_results.json`,
      "--out",
      join(tmp, "vllm-claims-json"),
      "--json",
    );
    const s = JSON.parse(j.stdout);
    assert.deepEqual([s.kind, s.headlines, s.claim_files.length], ["claims", 63, 33]);
  });

  await t.step(
    "OpenTelemetry traces (--from otlp) become a run folder; a file cut short is exit 2 naming its line",
    async () => {
      const example = fileURLToPath(new URL("../../data/import-examples/otlp_third_party.json", import.meta.url));
      const r = await importCli("--from", "otlp", example, "--out", join(tmp, "otlp"), "--json");
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout);
      assert.deepEqual([s.kind, s.tool, s.requests, s.outcomes], ["run", "otlp", 2, { ok: 1, transport_error: 1 }]);
      const cut = join(tmp, "otlp-cut.json");
      Deno.writeTextFileSync(cut, Deno.readTextFileSync(example).slice(0, 500));
      const bad = await importCli("--from", "otlp", cut, "--out", join(tmp, "otlp-cut"));
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /otlp-cut\.json:\d+:\d+: not valid JSON/);
      assert.doesNotMatch(bad.stderr, /\bat .*\.ts:\d+/);
      // A span's value the contract does not allow (a send lag below 0) is exit 2 naming the task and column, nothing written.
      const doc = JSON.parse(Deno.readTextFileSync(example));
      const root = doc.resourceSpans[0].scopeSpans[0].spans.find((s: { name: string }) => s.name === "POST /chat");
      root.attributes.push({ key: "goodput.send_lag_ms", value: { doubleValue: -3 } });
      const early = join(tmp, "otlp-early.json");
      Deno.writeTextFileSync(early, JSON.stringify(doc));
      const refused = await importCli("--from", "otlp", early, "--out", join(tmp, "otlp-early"));
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /otlp-early\.json: spans that do not map onto the contract/);
      assert.match(
        refused.stderr,
        /otlp-early\.json:1: task "[0-9a-f]{32}": request: send_lag_ms: Too small: expected number to be >=0/,
      );
      assert.doesNotMatch(refused.stderr, /\bat .*\.ts:\d+/);
      assert.throws(() => Deno.statSync(join(tmp, "otlp-early")), Deno.errors.NotFound);
    },
  );
});
