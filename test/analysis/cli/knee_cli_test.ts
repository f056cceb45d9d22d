import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../support/run_cli.ts";
import { SWEEP_OVERHEADS, SWEEP_POLICY, SWEEP_PRICES, SWEEP_REPLICAS, writeSweepRun } from "../knee/knee_fixture.ts";

const CLI = new URL("../../../analysis/cli/knee.ts", import.meta.url).pathname;

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
  await t.step("a limit is exact in --json and rounded down in text: 8 × (1 − 0.15155) = 6.7876", async () => {
    // To 4 significant digits the nearest is 6.788 (up, the non-conservative side); shown is 6.787.
    const json = JSON.parse((await runCli(CLI, [run, "--slo", slo, "--headroom", "0.15155", "--json"])).stdout);
    assert.equal(json.limit.limit_rps, 6.7876);
    const r = await runCli(CLI, [run, "--slo", slo, "--headroom", "0.15155"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^production limit: 6\.787 req\/s \(rounded down; limit = knee × \(1 − headroom\) = 8 ×/m);
    assert.match(r.stdout, /= 8 × \(1 − 0\.15155\) = 6\.787 req\/s \(rounded down\); the headroom 0\.15155 was given/);
    assert.doesNotMatch(r.stdout, /6\.788/);
    assert.match(r.stdout, /^knee: 8 req\/s offered/m);
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

Deno.test("knee CLI --prices adds the ledger's cost per accepted task; bad sheets exit 2 naming the file", async (t) => {
  const root = Deno.makeTempDirSync();
  const slo = join(root, "slo.json"), prices = join(root, "prices.json"), over = join(root, "over.json");
  Deno.writeTextFileSync(slo, JSON.stringify(SWEEP_POLICY));
  Deno.writeTextFileSync(prices, JSON.stringify(SWEEP_PRICES));
  Deno.writeTextFileSync(over, JSON.stringify(SWEEP_OVERHEADS));
  const run = writeSweepRun(join(root, "run"), { replicas: SWEEP_REPLICAS });
  await t.step(
    "--json: the value per level (hand-computed in level_cost_test.ts) and the unit cost disclosed",
    async () => {
      const r = await runCli(CLI, [run, "--slo", slo, "--prices", prices, "--overheads", over, "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      const values = j.levels.map((l: { signals: Record<string, { value: number | null }> }) =>
        l.signals.cost_per_accepted!.value
      );
      const want = [0.13375 / 40, 0.23175 / 78, 0.65775 / 144, null];
      values.forEach((v: number | null, i: number) => {
        if (want[i] === null) assert.equal(v, null);
        else assert.ok(Math.abs(v! - want[i]!) < 1e-12, `level ${i}: ${v}`);
      });
      assert.equal(j.disclosure.unit_cost.signal, "cost_per_accepted");
      assert.deepEqual(j.disclosure.tolerances.cost_per_accepted, { rel: 0.2, abs: 0 });
      assert.ok(j.disclosure.signal_definitions.cost_per_accepted);
      assert.equal(j.departures.cost_per_accepted.departures[1].verdict, "degraded");
    },
  );
  await t.step("text: a cost_per_accepted row and the unit-cost line naming the sheets", async () => {
    const r = await runCli(CLI, [run, "--slo", slo, "--prices", prices]);
    assert.equal(r.code, 0, r.stderr);
    // Without overheads: GPU (1, 2, 16 replicas) 0.02 per replica per 20 s + 1 spare over 20 s + a quarter of the
    // 15 s of warm-up and drain (0.02375): 0.04375/40, 0.06375/78, 0.34375/144.
    assert.match(r.stdout, /cost_per_accepted\s+↑ worse\s+20 %\s+0\.001094\s+0\.0008173\s+0\.002387 !\s+-/);
    assert.match(r.stdout, /unit cost: cost_per_accepted \(price sheet sweep-prices \(as of 2026-01-01\)\): USD/);
  });
  await t.step("without --prices: no cost row, and the output says tokens stand for unit cost", async () => {
    const r = await runCli(CLI, [run, "--slo", slo, "--json"]);
    const j = JSON.parse(r.stdout);
    assert.equal(j.levels[0].signals.cost_per_accepted, undefined);
    assert.equal(j.disclosure.signal_definitions.cost_per_accepted, undefined);
    const text = await runCli(CLI, [run, "--slo", slo]);
    assert.doesNotMatch(text.stdout, /^cost_per_accepted/m);
    assert.match(text.stdout, /unit cost: tokens_per_accepted: no price sheet given/);
  });
  const bad = (name: string, content: unknown) => {
    const f = join(root, name);
    Deno.writeTextFileSync(f, typeof content === "string" ? content : JSON.stringify(content));
    return f;
  };
  const noCurrency = bad("no-currency.json", { ...SWEEP_PRICES, currency: undefined });
  const otherRoute = bad("other-route.json", { ...SWEEP_PRICES, routes: { other: SWEEP_PRICES.routes["*"] } });
  const notJson = bad("not-json.json", "{ nope");
  const eur = bad("eur.json", { ...SWEEP_OVERHEADS, currency: "EUR" });
  const cases: [string, string[], RegExp][] = [
    ["missing field", ["--prices", noCurrency], /no-currency\.json: currency/],
    ["not JSON", ["--prices", notJson], /not-json\.json: price sheet is not valid JSON/],
    ["no such file", ["--prices", join(root, "absent.json")], /absent\.json: cannot read price sheet/],
    [
      "a route of the run not priced",
      ["--prices", otherRoute],
      /other-route\.json: routes: .*no price for route "default"/,
    ],
    ["overheads without prices", ["--overheads", over], /--overheads .*over\.json: needs --prices/],
    ["overheads in another currency", ["--prices", prices, "--overheads", eur], /eur\.json: currency EUR differs/],
  ];
  for (const [name, args, want] of cases) {
    await t.step(name, async () => {
      const r = await runCli(CLI, [run, "--slo", slo, ...args]);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, want);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    });
  }
});
