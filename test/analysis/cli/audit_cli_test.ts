import assert from "node:assert/strict";
import { join } from "node:path";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import { writeRun } from "../_fixture.ts";
import { runCli } from "../../support/run_cli.ts";

const CLI = new URL("../../../analysis/cli/audit.ts", import.meta.url).pathname;

const auditCli = (...args: string[]) =>
  runCli(CLI, args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

Deno.test("the audit CLI", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const run = writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables());
  const slo = join(tmp, "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(POLICY));
  const write = (name: string, claim: unknown) => {
    const f = join(tmp, name);
    Deno.writeTextFileSync(f, JSON.stringify(claim));
    return f;
  };

  await t.step(
    "a vendor-style claim: NOT REPRODUCED under the defaults, reproduced by completed + gates off",
    async () => {
      // 10 accepted without gates / 15 completed = 0.6667, published as an "acceptance rate".
      const claim = write("vendor.json", { metric: "acceptance_rate", value: 0.6667, source: "a vendor blog" });
      const r = await auditCli(run, "--claim", claim, "--slo", slo);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^claim: acceptance_rate = 0\.6667 .*source: a vendor blog/m);
      // 5 / 23 = 0.217391; no tolerance stated: "0.6667" stands for ±0.00005 (before: an implicit 1 %)
      assert.match(
        r.stdout,
        /^AUDIT: NOT REPRODUCED at the published precision — acceptance_rate = 0\.6667 \(class all, stage all\): the stated rules give 0\.217391; 4 of 72 rule combinations searched give it \(they cannot be told apart at that precision\)$/m,
      );
      assert.match(
        r.stdout,
        /^compared at the published precision: 0\.6667 stands for ±0\.00005: recomputed 0\.217391/m,
      );
      assert.match(r.stdout, /denominator: offered \(the definition\)/);
      assert.match(r.stdout, /^ {2}denominator completed, window policy, SLO stated, gates off -> 0\.666667$/m);
    },
  );

  await t.step("a claim stated with its rules: MATCH; --json carries the verdict", async () => {
    // 5 accepted / 20 s = 0.25/s
    const claim = write("stated.json", {
      metric: "accepted_goodput",
      value: 0.25,
      gates: true,
      warmup_included: false,
      tolerance: { absolute: 0.001 },
      slo: "slo.json",
      source: "our report",
    });
    const r = await auditCli(run, "--claim", claim);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^AUDIT: REPRODUCED within the stated tolerance ±0\.001 — /);
    assert.match(r.stdout, /^compared within the tolerance the claim states: .*recomputed 0\.25 vs claimed 0\.25/m);
    const j = JSON.parse((await auditCli(run, "--claim", claim, "--json")).stdout);
    assert.equal(j.stated.match, true);
    assert.equal(j.stated.value, 0.25);
    assert.ok(j.reproducing.length >= 1);
  });

  await t.step("a claim nothing reproduces prints none", async () => {
    const claim = write("none.json", { metric: "accepted_goodput", value: 99, source: "x" });
    const r = await auditCli(run, "--claim", claim, "--slo", slo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^AUDIT: NOT REPRODUCED/);
    assert.match(r.stdout, /reproduce the claim \(0 of 24 searched\):\n {2}none/);
  });

  await t.step("a p99 from 15 samples is printed with n and flagged", async () => {
    const claim = write("p99.json", {
      metric: "latency_percentile",
      latency_metric: "e2e_ms",
      p: 0.99,
      value: 4000,
      source: "x",
    });
    const r = await auditCli(run, "--claim", claim, "--slo", slo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /n = 15, 95 % CI \[2500, -\], supported: false/);
    // The rule with its confidence: 0.99^459 = 0.0099 ≤ 0.01 < 0.99^458.
    assert.match(r.stdout, /supported: false \(supported = MLPerf LoadGen's early-stopping rule at 99 % one-sided/);
    assert.match(r.stdout, /^NOTE: n = 15 cannot support the claim/m);
    assert.match(r.stdout, /NOT supported at 99 %\)/);
    const loose = await auditCli(run, "--claim", claim, "--slo", slo, "--confidence", "0.9");
    assert.match(loose.stdout, /at 90 % one-sided confidence \(n ≥ 230 for p99\)/);
  });

  await t.step("bad input exits 2 naming the file and field, never a stack trace", async () => {
    const bad = write("bad.json", { metric: "goodput", value: 1, source: "x" });
    const r = await auditCli(run, "--claim", bad, "--slo", slo);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`${bad}: metric:`));
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
    const noClaim = await auditCli(run);
    assert.equal(noClaim.code, 2);
    assert.match(noClaim.stderr, /--claim FILE is required/);
    // The fixture's workload has no default policy and the claim states none.
    const r2 = await auditCli(run, "--claim", write("ok.json", { metric: "accepted_goodput", value: 1, source: "x" }));
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /an SLO policy is required/);
  });
});
