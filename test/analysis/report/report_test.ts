import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { buildReport } from "../../../analysis/report/report.ts";
import { runCli } from "../../support/run_cli.ts";
import { writeRun } from "../_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";

const CLI = new URL("../../../analysis/cli/report.ts", import.meta.url).pathname;
const EXTRAS = {
  knee: { knee_rps: 1.2, limits: [{ headroom: 0.25, rps: 0.9 }] },
  ledger: { currency: "USD", accepted_tasks: 5, disclosure: "sheet s1", components: [{ name: "provider", amount: 2 }] },
  routes: {
    currency: "USD",
    disclosure: "same plan",
    routes: [{ route: "default", accepted_goodput: 0.25, acceptance_rate: 0.2, cost_per_accepted_task: 0.4, n: 23 }],
  },
  outages: [{ start_ms: 12_000, end_ms: 13_000, label: "503" }],
};

Deno.test("buildReport() includes every figure whose inputs exist and lists the absent ones", async (t) => {
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables());
  const run = await loadRun(dir, { onWarning: () => {} });
  await t.step("the run alone", () => {
    const r = buildReport(run, POLICY, { policy_source: "hand policy" });
    assert.deepEqual(r.figures.map((f) => f.id), [
      "goodput-vs-load",
      "timeline",
      "failures-by-class",
      "failures-by-stage",
      "latency-e2e_ms-p99",
      "cdf-e2e_ms",
      "cdf-ttft_ms",
      "slo-sweep-e2e_ms",
      "alternatives",
    ]);
    assert.deepEqual(r.absent.map((a) => a.id), [
      "goodput-vs-load:knee",
      "timeline:server",
      "timeline:outages",
      "cost-waterfall",
      "route-comparison",
    ]);
    // The hand fixture: 5 accepted of 23 offered in 20 s (goodput_fixture_test.ts).
    assert.ok(r.html.includes("accepted goodput 0.25 tasks/s"));
    assert.ok(r.html.includes("5 accepted of 23 offered in 20 s"));
    // The subtitle is the disclosure, cut into lines at spaces (`<br>` between them).
    for (const f of r.figures) {
      assert.ok(f.disclosure.length > 0 && f.layout.title.subtitle.text.replaceAll("<br>", " ") === f.disclosure, f.id);
    }
    // Every disclosure names the run, the window and n.
    for (const f of r.figures) assert.match(f.disclosure, /run fixture-run;.*window .*n = \d+/, f.id);
  });
  await t.step("with extras: knee marked, ledger and routes drawn, outages shaded", () => {
    const r = buildReport(run, POLICY, { extras: EXTRAS });
    assert.deepEqual(r.absent.map((a) => a.id), ["timeline:server"]);
    assert.ok(r.figures.some((f) => f.id === "cost-waterfall"));
    assert.ok(r.figures.some((f) => f.id === "route-comparison"));
    assert.match(r.figures[0]!.title, /knee 1\.2 rps/);
  });
  await t.step("the latency table states the supported rule and its confidence, with each bound", () => {
    // p50/p95/p99 at 99 %: ln 0.01 / ln p → 7, 90, 459 samples; at 90 %: ln 0.1 / ln p → 4, 45, 230.
    const r = buildReport(run, POLICY);
    assert.match(r.html, /early-stopping rule at 99 % one-sided confidence \(n ≥ 7 for p50, 90 for p95, 459 for p99\)/);
    assert.match(r.html, /<th>bound at 99 %<\/th>/);
    // The 15 completed e2e values support their p50 at 99 %: the bound column shows "≤ x", the p99 UNSUPPORTED.
    // Columns: class, metric, p, n, excluded (0: every completed request has an e2e), value, CI, bound.
    assert.match(
      r.html,
      /<td>all<\/td><td>e2e_ms<\/td><td>p50<\/td><td>15<\/td><td>0<\/td><td>[^<]+<\/td><td>[^<]+<\/td><td>≤ \d/,
    );
    assert.match(r.html, /<td>all<\/td><td>e2e_ms<\/td><td>p99<\/td><td>15<\/td>.*?<td>UNSUPPORTED<\/td>/);
    const loose = buildReport(run, POLICY, { supportConfidence: 0.9 });
    assert.match(loose.html, /at 90 % one-sided confidence \(n ≥ 4 for p50, 45 for p95, 230 for p99\)/);
  });
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("the report CLI writes the HTML and refuses bad input with exit 2", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const dir = writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables());
  const slo = join(tmp, "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(POLICY));
  await t.step("writes --out and names every figure", async () => {
    const extras = join(tmp, "extras.json");
    Deno.writeTextFileSync(extras, JSON.stringify(EXTRAS));
    const out = join(tmp, "r.html");
    const r = await runCli(CLI, [dir, "--slo", slo, "--extras", extras, "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /11 figures/);
    assert.ok(Deno.readTextFileSync(out).includes("cost-waterfall"));
  });
  await t.step("bad extras: every problem named, no stack trace", async () => {
    const bad = join(tmp, "bad.json");
    Deno.writeTextFileSync(bad, JSON.stringify({ knee: { knee_rps: -1 }, ledger: { currency: "" } }));
    const r = await runCli(CLI, [dir, "--slo", slo, "--extras", bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.json: knee\.knee_rps/);
    assert.match(r.stderr, /bad\.json: ledger\.currency/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });
  await t.step("--confidence outside [0.5, 1) is refused", async () => {
    const r = await runCli(CLI, [dir, "--slo", slo, "--confidence", "0.995x"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--confidence: expected a number in \[0\.5, 1\)/);
  });
  await t.step("no SLO for an unknown workload", async () => {
    const r = await runCli(CLI, [dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /an SLO policy is required/);
  });
  Deno.removeSync(tmp, { recursive: true });
});
