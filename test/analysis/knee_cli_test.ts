import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../support/run_cli.ts";
import { SWEEP_POLICY, writeSweepRun } from "./knee_fixture.ts";

const CLI = new URL("../../analysis/cli/knee.ts", import.meta.url).pathname;

function setup() {
  const root = Deno.makeTempDirSync();
  const slo = join(root, "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(SWEEP_POLICY));
  return { root, slo, run: writeSweepRun(join(root, "run")) };
}

Deno.test("knee CLI names the knee, the first degrading signal and the limits", async (t) => {
  const { root, slo, run } = setup();
  await t.step("--json without --headroom: no limit applied, the choices shown", async () => {
    const r = await runCli(CLI, [run, "--slo", slo, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.knee_offered_rps, 8);
    assert.equal(j.first_degrading_signal, "acceptance_rate");
    assert.equal(j.limit.headroom, null);
    assert.equal(j.limit.limit_rps, null);
    assert.deepEqual(j.limit.choices.map((c: { limit_rps: number }) => c.limit_rps), [7.2, 6.4, 5.6, 4]);
    assert.match(j.limit.note, /business decision/);
    assert.equal(j.levels.length, 4);
    assert.equal(j.disclosure.slo_file, slo);
    assert.equal(j.kneedle.result.knee, 8);
  });
  await t.step("text with --headroom 0.25: limit = 8 × 0.75 = 6", async () => {
    const r = await runCli(CLI, [run, "--slo", slo, "--headroom", "0.25"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /first degrading at planned 8 req\/s \(measured 8 req\/s\): acceptance_rate, rejection_rate/,
    );
    assert.match(r.stdout, /production limit: 6 req\/s \(limit = knee × \(1 − headroom\) = 8 × \(1 − 0.25\) = 6/);
    assert.doesNotMatch(r.stdout, /not applied/);
  });
  await t.step("text without --headroom says the choice is the user's", async () => {
    const r = await runCli(CLI, [run, "--slo", slo]);
    assert.match(r.stdout, /production limit: not applied — no headroom was given/);
    assert.match(r.stdout, /30 %\s+5.6/);
  });
  await t.step("two runs of the same plan: each level shows both repeats", async () => {
    const b = writeSweepRun(join(root, "b"), { runId: "b", step3RejectEvery: 5 });
    const r = await runCli(CLI, [run, b, "--slo", slo, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.match(j.disclosure.repeat_basis, /same schedule/);
    assert.deepEqual(j.levels[2].repeats.map((p: { accepted: number }) => p.accepted), [144, 128]);
  });
});

Deno.test("knee CLI: bad input exits 2 with a message, never a stack trace", async (t) => {
  const { root, slo, run } = setup();
  const cases: [string, string[], RegExp][] = [
    ["headroom of 1", [run, "--slo", slo, "--headroom", "1"], /--headroom: expected a number in \[0, 1\)/],
    ["headroom not a number", [run, "--slo", slo, "--headroom", "lots"], /--headroom/],
    ["no run", ["--slo", slo], /at least one RUN/],
    ["no default policy", [run], /an SLO policy is required/],
    [
      "unknown tolerance",
      [run, "--slo", slo, "--tolerances", join(root, "tol.json")],
      /tol.json: nope: unknown signal/,
    ],
  ];
  Deno.writeTextFileSync(join(root, "tol.json"), JSON.stringify({ nope: { abs: 1 } }));
  for (const [name, args, want] of cases) {
    await t.step(name, async () => {
      const r = await runCli(CLI, args);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, want);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    });
  }
});
