import assert from "node:assert/strict";
import { join } from "node:path";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import { writeRun } from "../_fixture.ts";
import { runCli } from "../../support/run_cli.ts";

const CLI = new URL("../../../analysis/cli/analyze.ts", import.meta.url).pathname;

const analyze = (...args: string[]) => runCli(CLI, args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

Deno.test("the analyze CLI", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const run = writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables());
  const slo = join(tmp, "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(POLICY));

  await t.step("prints the disclosure and the overall, by-class and by-stage tables", async () => {
    const r = await analyze(run, "--slo", slo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /denominator: offered/);
    assert.match(r.stdout, /measurement_seconds = 20/);
    assert.match(r.stdout, /^all\s+23\s+21\s+15\s+5\s+20\.0\s+0\.2500\s+0\.2174\s+0\.7826\s+rejected=1/m);
    assert.match(r.stdout, /^qa\s+18\s+16\s+10\s+3\s/m);
    assert.match(r.stdout, /^peak\s+9\s+9\s+9\s+2\s+10\.0\s+0\.2000/m);
  });

  await t.step("--json prints one object with the documented fields; --denominator overrides the policy", async () => {
    const r = await analyze(run, "--slo", slo, "--json", "--denominator", "completed");
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j), [
      "verdict",
      "caveats",
      "verdicts",
      "disclosure",
      "overall",
      "by_class",
      "by_stage",
      "by_mode",
      "provider_quota",
      "latency",
      "wait_breakdown",
    ]);
    // The fixture's attempts state no rate limits: the quota section is its one line.
    assert.equal(j.provider_quota.bound.line, "provider quota: no quota headers recorded");
    const fields = [
      "offered",
      "sent",
      "completed",
      "accepted",
      "measurement_seconds",
      "accepted_goodput",
      "acceptance_rate",
      "slo_miss_rate",
      "failures",
    ];
    assert.deepEqual(Object.keys(j.overall), fields);
    assert.deepEqual(Object.keys(j.by_class[0]), ["class", ...fields]);
    assert.deepEqual(Object.keys(j.by_stage[0]), ["stage", ...fields]);
    assert.deepEqual(Object.keys(j.by_mode[0]), ["mode", ...fields]);
    assert.equal(j.disclosure.denominator, "completed");
    assert.equal(j.overall.slo_miss_rate, 10 / 15);
    assert.ok(Array.isArray(j.disclosure.inclusion_rules));
  });

  await t.step("the latency table states the supported rule and its confidence; --confidence sets it", async () => {
    // p50/p95/p99 at 99 %: ln 0.01 / ln p = 6.6 → 7, 89.8 → 90, 458.2 → 459; at 90 %: 3.3 → 4, 44.9 → 45, 229.1 → 230.
    const r = await analyze(run, "--slo", slo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /early-stopping rule at 99 % one-sided confidence \(n ≥ 7 for p50, 90 for p95, 459 for p99\)/,
    );
    const loose = await analyze(run, "--slo", slo, "--confidence", "0.9");
    assert.equal(loose.code, 0, loose.stderr);
    assert.match(loose.stdout, /at 90 % one-sided confidence \(n ≥ 4 for p50, 45 for p95, 230 for p99\)/);
    const j = JSON.parse((await analyze(run, "--slo", slo, "--json", "--confidence", "0.9")).stdout);
    assert.ok(j.latency.rows.every((row: { support_confidence: number }) => row.support_confidence === 0.9));
    for (const bad of ["1", "0.3", "high", ""]) {
      const e = await analyze(run, "--slo", slo, "--confidence", bad);
      assert.equal(e.code, 2, bad);
      assert.match(e.stderr, /--confidence: expected a number in \[0\.5, 1\)/);
    }
  });

  await t.step("bad input exits 2 with a message naming the file and field, never a stack trace", async () => {
    const bad = join(tmp, "bad.json");
    Deno.writeTextFileSync(bad, JSON.stringify({ default: { e2e_ms: 1000, gates: ["fast_ok"] } }));
    const r = await analyze(run, "--slo", bad);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.json: default\.gates\.0/);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
    const noSlo = await analyze(run);
    assert.equal(noSlo.code, 2);
    assert.match(noSlo.stderr, /an SLO policy is required/);
    const flag = await analyze(run, "--slo", slo, "--denominator", "done");
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /--denominator/);
  });
});
