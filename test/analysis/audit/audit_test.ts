import assert from "node:assert/strict";
import { join } from "node:path";
import { alternatives } from "../../../analysis/audit/alternatives.ts";
import { audit } from "../../../analysis/audit/audit.ts";
import { type Claim, loadClaim, type ResolvedClaim } from "../../../analysis/audit/claim.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { writeRun } from "../_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";

const claim = (over: Partial<ResolvedClaim> & Pick<Claim, "metric" | "value">): ResolvedClaim => ({
  class: null,
  stage: null,
  source: "test",
  ...over,
  slo: undefined,
});

Deno.test("audit() on the hand fixture", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const run = await loadRun(writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables()));
  const alt = alternatives(run, POLICY);
  const pick = (gates: string, denominator: string, window = "policy") =>
    alt.rows.find((r) =>
      r.window === window && r.slo === "strict" && r.gates === gates && r.denominator === denominator
    )!;

  await t.step("finds the rule choice behind a planted claim; the default rules are a mismatch", () => {
    // Planted: slo_miss_rate over completed with no gate required = (15 − 10) / 15, published without its rules.
    const planted = pick("off", "completed").slo_miss_rate!;
    const r = audit(run, claim({ metric: "slo_miss_rate", value: planted }), { policy: POLICY });
    assert.equal(r.stated.match, false);
    assert.equal(r.stated.value, 18 / 23); // the default: offered, gates on
    assert.ok(r.assumed.some((a) => a.startsWith("denominator: offered")));
    assert.ok(r.assumed.some((a) => a.startsWith("gates:")));
    assert.equal(r.searched, 3 * 4 * 2 * 3);
    assert.ok(
      r.reproducing.some((c) =>
        c.denominator === "completed" && c.gates === "off" && c.slo === "stated" && c.window === "policy"
      ),
      JSON.stringify(r.reproducing),
    );
    assert.ok(!r.reproducing.some((c) => c.denominator === "offered" && c.gates === "on" && c.window === "policy"));
  });

  await t.step("a claim whose stated rules are the real ones matches and assumes only what it left out", () => {
    // Whole run: 7 accepted / 35 s = 0.2/s, stated with its window and gates.
    const value = pick("on", "offered", "whole_run").accepted_goodput!;
    assert.equal(value, 7 / 35);
    const r = audit(
      run,
      claim({ metric: "accepted_goodput", value, window: { exclude_stage_kinds: [] }, gates: true }),
      { policy: POLICY, policy_source: "fixture policy" },
    );
    assert.equal(r.stated.match, true);
    assert.equal(r.stated.value, 0.2);
    // no tolerance stated: 0.2 as written stands for ±0.05 (one decimal)
    assert.deepEqual(r.assumed, [
      "tolerance: none stated; compared at the published precision: 0.2 stands for ±0.05",
      "SLO policy: fixture policy",
    ]);
    // Goodput does not depend on the denominator: it is not searched.
    assert.ok(r.reproducing.every((c) => c.denominator === null));
    assert.equal(r.searched, 3 * 4 * 2);
  });

  await t.step("the stated tolerance decides the verdict", () => {
    // 0.26 vs 0.25: off by 0.01, inside ±0.01 absolute, outside "0.26"'s ±0.005.
    const loose = audit(run, claim({ metric: "accepted_goodput", value: 0.26, tolerance: { absolute: 0.01 } }), {
      policy: POLICY,
    });
    assert.equal(loose.stated.match, true);
    assert.equal(loose.tolerance.allowed, 0.01);
    const tight = audit(run, claim({ metric: "accepted_goodput", value: 0.26 }), { policy: POLICY });
    assert.equal(tight.stated.match, false);
    assert.equal(tight.tolerance.stated, false);
    assert.equal(tight.tolerance.allowed, 0.005);
    // "0.25" stands for ±0.005 too: 0.25 reproduces; "0.3" stands for ±0.05: 0.25 is exactly half a unit off, a tie
    assert.equal(audit(run, claim({ metric: "accepted_goodput", value: 0.25 }), { policy: POLICY }).stated.match, true);
    assert.equal(
      audit(run, claim({ metric: "accepted_goodput", value: 0.3, value_text: "0.3" }), { policy: POLICY }).stated.match,
      true,
    );
    assert.equal(
      audit(run, claim({ metric: "accepted_goodput", value: 0.3, value_text: "0.30" }), { policy: POLICY }).stated
        .match,
      false,
    );
  });

  await t.step("an acceptance rate over completed with gates off is the vendor's 15 / 15", () => {
    // "1.000" (±0.0005): a bare "1" would stand for ±0.5 and be reproduced by anything from 0.5 up
    const r = audit(run, claim({ metric: "acceptance_rate", value: 1, value_text: "1.000", gates: false }), {
      policy: POLICY,
    });
    assert.equal(r.stated.value, 10 / 23);
    assert.equal(r.stated.match, false);
    assert.ok(r.reproducing.length > 0);
    // Every reproducing choice drops failed requests from the denominator and needs no gate.
    assert.ok(r.reproducing.every((c) => c.denominator === "completed" && c.gates === "off"));
  });

  await t.step("a p99 claim from 15 samples is flagged as unsupported", () => {
    // e2e of the 15 completed requests in the window; the largest is o1's 4000 ms.
    const r = audit(run, claim({ metric: "latency_percentile", latency_metric: "e2e_ms", p: 0.99, value: 4000 }), {
      policy: POLICY,
    });
    assert.equal(r.stated.latency?.n, 15);
    assert.equal(r.stated.latency?.supported, false);
    assert.equal(r.stated.value, 4000);
    assert.equal(r.stated.match, true);
    assert.ok(r.notes.some((n) => n.includes("n = 15 cannot support")), r.notes.join("\n"));
    assert.deepEqual(r.reproducing.map((c) => c.window), ["policy", "warmup_included", "whole_run"]);
  });

  await t.step("a p50 claim with enough samples carries n and a bounded interval", () => {
    const r = audit(
      run,
      claim({ metric: "latency_percentile", latency_metric: "ttft_ms", p: 0.5, value: 200, class: "qa" }),
      { policy: POLICY },
    );
    // qa completed in the window: q1 and q10–q18 = 10; TTFTs sorted 100, 200 ×6, 250, 400, 400 → rank 5 = 200.
    assert.equal(r.stated.latency?.n, 10);
    assert.equal(r.stated.latency?.supported, true);
    assert.equal(r.stated.match, true);
    assert.deepEqual(r.notes, []);
  });

  await t.step("loadClaim() names the file and every bad field", async () => {
    const bad = join(tmp, "bad.json");
    Deno.writeTextFileSync(bad, JSON.stringify({ metric: "latency_percentile", value: "fast", source: "x" }));
    const err = await loadClaim(bad).catch((e) => e);
    assert.ok(err instanceof InputError);
    for (const field of ["value", "latency_metric", "p"]) {
      assert.ok(err.problems.some((p: string) => p.startsWith(`${bad}: ${field}:`)), `${field}: ${err.message}`);
    }
  });

  await t.step("loadClaim() reads an slo path relative to the claim file", async () => {
    Deno.writeTextFileSync(join(tmp, "slo.json"), JSON.stringify(POLICY));
    const f = join(tmp, "ok.json");
    Deno.writeTextFileSync(
      f,
      JSON.stringify({ metric: "accepted_goodput", value: 0.25, slo: "slo.json", source: "x" }),
    );
    const c = await loadClaim(f);
    assert.deepEqual(c.slo, POLICY);
    assert.equal(c.slo_source, join(tmp, "slo.json"));
    const r = audit(run, c, { policy: { ...POLICY, default: { gates: [] } } });
    assert.equal(r.stated.match, true);
    assert.ok(!r.assumed.some((a) => a.startsWith("SLO policy")));
  });
});
