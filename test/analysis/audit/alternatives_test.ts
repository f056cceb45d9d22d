import assert from "node:assert/strict";
import { join } from "node:path";
import { alternatives, variantPolicy } from "../../../analysis/audit/alternatives.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { writeRun } from "../_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY, STAGES } from "../hand_fixture.ts";

const CLI = new URL("../../../analysis/cli/analyze.ts", import.meta.url).pathname;

Deno.test("alternatives() moves the hand fixture's headline by denominator, gates, SLO and window", async (t) => {
  const run = await loadRun(writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables()));
  const alt = alternatives(run, POLICY);
  const row = (window: string, slo: string, gates: string, denominator: string) => {
    const r = alt.rows.find((x) =>
      x.window === window && x.slo === slo && x.gates === gates && x.denominator === denominator
    );
    assert.ok(r, `${window}/${slo}/${gates}/${denominator}`);
    return r;
  };

  await t.step("every combination is listed once, the policy's own first", () => {
    assert.equal(alt.rows.length, 3 * 2 * 2 * 3);
    assert.equal(new Set(alt.rows.map((r) => `${r.window}/${r.slo}/${r.gates}/${r.denominator}`)).size, 36);
    assert.deepEqual([alt.headline.window, alt.headline.slo, alt.headline.gates, alt.headline.denominator], [
      "policy",
      "strict",
      "on",
      "offered",
    ]);
    assert.equal(alt.headline.differs_from_headline, false);
    assert.equal(alt.lenient_factor, 2);
  });

  await t.step("denominators: 23 offered, 21 sent (q3 shed, q4 not sent), 15 completed; 5 accepted", () => {
    // Accepted q1, q14, q15, j2, o1 over the 20 s window (low + peak).
    const off = row("policy", "strict", "on", "offered");
    assert.deepEqual([off.accepted, off.D, off.measurement_seconds], [5, 23, 20]);
    assert.equal(off.accepted_goodput, 5 / 20); // 0.25/s
    assert.equal(off.slo_miss_rate, (23 - 5) / 23); // 0.7826
    const sent = row("policy", "strict", "on", "sent");
    assert.equal(sent.slo_miss_rate, (21 - 5) / 21); // 0.7619
    const done = row("policy", "strict", "on", "completed");
    assert.equal(done.slo_miss_rate, (15 - 5) / 15); // 0.6667
    // The denominator moves the acceptance and the miss rate, not goodput: accept = accepted / D.
    assert.equal(off.acceptance_rate, 5 / 23); // 0.2174
    assert.equal(sent.acceptance_rate, 5 / 21); // 0.2381
    assert.equal(done.accepted_goodput, 0.25);
    assert.equal(done.acceptance_rate, 5 / 15); // 0.3333, not 5 / 23 (over offered)
    assert.equal(done.differs_from_headline, true);
    assert.equal(done.disclosure.denominator, "completed");
  });

  await t.step("gates off: q13, q16, q17, j1, j3 (gate-only failures) become accepted: 5 + 5 = 10", () => {
    const r = row("policy", "strict", "off", "completed");
    assert.equal(r.accepted, 10);
    assert.equal(r.accepted_goodput, 10 / 20); // 0.5/s, twice the headline
    assert.equal(r.acceptance_rate, 10 / 15); // 0.6667 (over the 15 completed)
    assert.equal(r.slo_miss_rate, (15 - 10) / 15); // 1/3
    assert.deepEqual(r.disclosure.slo.classes.qa?.gates, []);
  });

  await t.step("lenient ×2: q10 (e2e 1200 ≤ 2000), q11 (TTFT 400 ≤ 600), q18 (TPOT 60 ≤ 100) pass: 8", () => {
    // q12 still fails quality_ok, j4 still fails schema_ok (null); without gates all 15 completed pass.
    assert.equal(row("policy", "lenient", "on", "offered").accepted, 8);
    const vendor = row("policy", "lenient", "off", "completed");
    assert.deepEqual([vendor.accepted, vendor.D, vendor.slo_miss_rate], [15, 15, 0]);
    assert.equal(vendor.disclosure.slo.classes.qa?.e2e_ms, 2000);
  });

  await t.step("windows: warm-up adds w1 over 10 s more; the whole run adds drain's w2 over 5 s more", () => {
    const warm = row("warmup_included", "strict", "on", "offered");
    assert.deepEqual([warm.accepted, warm.D, warm.measurement_seconds], [6, 24, 30]);
    assert.equal(warm.accepted_goodput, 6 / 30); // 0.2/s
    const whole = row("whole_run", "strict", "on", "offered");
    assert.deepEqual([whole.accepted, whole.D, whole.measurement_seconds], [7, 25, 35]);
    assert.equal(whole.acceptance_rate, 7 / 25); // 0.28
  });

  await t.step("one class: qa's headline is 3 of 18 offered (q1, q14, q15)", () => {
    const qa = alternatives(run, POLICY, { class: "qa", lenient_factor: 1.5 });
    assert.equal(qa.class, "qa");
    assert.deepEqual([qa.headline.accepted, qa.headline.D], [3, 18]);
    // Lenient ×1.5: e2e ≤ 1500, TTFT ≤ 450, TPOT ≤ 75 → q10, q11, q18 pass too: 6.
    assert.equal(qa.rows.find((r) => r.window === "policy" && r.slo === "lenient" && r.gates === "on")?.accepted, 6);
  });
});

Deno.test("variantPolicy() leaves the policy unchanged and puts warm-up back into a range window", () => {
  const before = JSON.stringify(POLICY);
  const p = variantPolicy(
    { ...POLICY, window: { start_ms: 10_000, end_ms: 30_000 } },
    { denominator: "sent", slo: "no_latency", factor: 1, gates: "on", window: "warmup_included" },
    STAGES,
  );
  assert.equal(JSON.stringify(POLICY), before);
  assert.deepEqual(p.window, { start_ms: 0, end_ms: 30_000 });
  assert.deepEqual(p.classes.json, { gates: ["output_valid", "schema_ok", "quality_ok"] });
});

Deno.test("analyze prints the latency table with n and CI and, with --alternatives, the alternatives table", async () => {
  const tmp = Deno.makeTempDirSync();
  const run = writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables());
  const slo = join(tmp, "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(POLICY));
  const cli = (...args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-ffi", "--allow-env", "--allow-sys", CLI, run, "--slo", slo, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
  const text = await cli("--alternatives");
  const out = new TextDecoder().decode(text.stdout);
  assert.equal(text.code, 0, new TextDecoder().decode(text.stderr));
  // e2e of the 15 completed in the window (none excluded): p50 = rank 8 = 800; p99 = the maximum 4000, unbounded above.
  assert.match(out, /^all\s+e2e_ms\s+15\s+0\s+800 \[800, 1200\]\s+4000 \[1200, ∞\] UNSUPPORTED/m);
  // Gates off over the 15 completed: accept = 10 / 15 = 0.6667 (not 10 / 23 = 0.4348), miss = 5 / 15 = 0.3333.
  assert.match(out, /^policy\s+strict\s+off\s+completed\s+10\s+15\s+20\.0\s+0\.5000\s+0\.6667\s+0\.3333\s+\*$/m);
  assert.match(out, /accept = accepted \/ D;/);
  const json = await cli("--json");
  const j = JSON.parse(new TextDecoder().decode(json.stdout));
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
  const p99 = j.latency.rows.find((r: { class: string | null; stage: string | null; metric: string; p: number }) =>
    r.class === null && r.stage === null && r.metric === "e2e_ms" && r.p === 0.99
  );
  assert.deepEqual([p99.n, p99.value, p99.supported], [15, 4000, false]);
});
