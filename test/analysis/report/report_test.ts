import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { buildReport } from "../../../analysis/report/report.ts";
import { runReportExtras } from "../../../analysis/report/report_extras.ts";
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
      "wait-breakdown",
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
      "quality",
    ]);
    // The hand fixture: 5 accepted of 23 offered in 20 s (goodput_fixture_test.ts).
    assert.ok(r.html.includes('<div class="gp-key">accepted goodput</div><div class="gp-value">0.25 tasks/s</div>'));
    assert.ok(r.html.includes("5 accepted of 23 offered in 20 s"));
    assert.ok(r.html.includes('<div class="gp-value">not priced</div><div class="gp-sub">no price sheet given'));
    // The subtitle is the disclosure, cut into lines at spaces (`<br>` between them).
    for (const f of r.figures) {
      assert.ok(f.disclosure.length > 0 && f.layout.title.subtitle.text.replaceAll("<br>", " ") === f.disclosure, f.id);
    }
    // Every disclosure names the run, the window and n.
    for (const f of r.figures) assert.match(f.disclosure, /run fixture-run;.*window .*n = \d+/, f.id);
  });
  await t.step("with extras: knee marked, ledger and routes drawn, outages shaded", () => {
    const r = buildReport(run, POLICY, { extras: EXTRAS });
    assert.deepEqual(r.absent.map((a) => a.id), ["timeline:server", "quality"]);
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

Deno.test("buildReport() leads with the verdict: rules, headline, caveats; then figures, then tables", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const run = await loadRun(writeRun(join(tmp, "run"), fixtureManifest(), fixtureTables()), { onWarning: () => {} });
  const source = "slo.json (sha256 0123456789ab…)";
  const chosen = { ...EXTRAS, knee: { ...EXTRAS.knee, headroom: 0.25 } };
  await t.step("the first screen states the rules, the headline and the caveats", () => {
    const r = buildReport(run, POLICY, { policy_source: source, extras: chosen });
    const verdict = r.html.slice(r.html.indexOf('<section class="gp-verdict"'), r.html.indexOf("</section>"));
    // The hand fixture: 5 accepted of 23 offered in the 20 s window: 5 / 20 = 0.25 tasks/s, acceptance 5 / 23 =
    // 0.2174, miss rate (23 − 5) / 23 = 0.7826; knee 1.2 req/s, limit at the chosen 25 %: 1.2 × 0.75 = 0.9 req/s.
    for (
      const text of [
        "<b>Measured:</b> 5 accepted of 23 offered in 20 s — run fixture-run (workload fixture 1, started " +
        "2026-01-01T00:00:00.000Z; csv log, 1 shard).",
        "<b>Rules:</b> denominator offered; window low+peak (20 s; all stages minus kinds warmup, drain); SLO file " +
        "slo.json (sha256 0123456789ab…);",
        '<div class="gp-value">0.25 tasks/s</div><div class="gp-sub">5 accepted / 20 s; window low+peak; n = 23 ' +
        "offered</div>",
        '<div class="gp-value">0.2174</div><div class="gp-sub">5 accepted / 23 offered; SLO miss rate 0.7826 of 23 offered',
        '<div class="gp-value">1.2 req/s</div>',
        '<div class="gp-value">0.9 req/s</div><div class="gp-sub">knee × (1 − 0.25): the chosen headroom 25 %',
        // The cost card: the ledger's 2 USD / 5 accepted = 0.4 USD; the one route's 0.4 USD beside it.
        '<div class="gp-value">0.4 USD</div><div class="gp-sub">2 USD whole ledger / 5 accepted; routes: default 0.4 ' +
        "USD</div>",
        // 15 completed e2e values, fewer than the 459 that p99 needs at 99 %: a NOTE, one line, its detail linked.
        '<li class="gp-sev-NOTE"><span class="gp-sev">NOTE</span> UNSUPPORTED PERCENTILES: ',
      ]
    ) assert.ok(verdict.includes(text), text);
    assert.deepEqual(r.caveats.map((c) => c.kind), ["client_limited", "unsupported_percentiles"]);
    // The run's verdict (stage low: 2 of its 14 requests not sent) is the first line, before the title and any
    // number; its caveat line (INVALID) follows the cards, linked to its whole text below the figures.
    assert.ok(
      verdict.startsWith(
        '<section class="gp-verdict" id="verdict">\n<p class="gp-verdict-line gp-invalid" role="alert"><b>' +
          "CLIENT-LIMITED</b>: the load generator may have shaped these numbers</p>\n<h1>",
      ),
      verdict.slice(0, 300),
    );
    assert.match(
      verdict,
      /<li class="gp-sev-INVALID"><span class="gp-sev">INVALID<\/span> CLIENT-LIMITED (STAGE|RUN): low /,
    );
    assert.ok(verdict.indexOf("gp-sev-INVALID") > verdict.indexOf('<div class="gp-headline">'));
    assert.ok(verdict.includes('<a href="#caveat-1">detail</a>'));
    const detail = r.html.slice(r.html.indexOf('<h2 id="caveats">'));
    assert.match(
      detail,
      /^<h2 id="caveats">[^<]*<\/h2>\n<ol class="gp-caveat-detail"><li id="caveat-1" class="gp-sev-INVALID">/,
    );
    assert.match(detail, /<b>INVALID CLIENT-LIMITED<\/b>: CLIENT-LIMITED (STAGE|RUN): low \(1\.4 req\/s/);
    assert.ok(r.html.indexOf('<h2 id="caveats">') > r.html.indexOf('class="gp-plot"'), "the detail below the figures");
    assert.ok(!verdict.includes(tmp), "no local path");
  });
  await t.step("figures before the tables; the latency table and the disclosure collapsed", () => {
    const html = buildReport(run, POLICY, { extras: chosen }).html;
    const at = (s: string) => html.indexOf(s);
    assert.ok(at("gp-verdict") < at('class="gp-plot"') && at('class="gp-plot"') < at('<h2 id="tables">'));
    assert.ok(at('<details id="goodput-tables" open>') > 0);
    assert.ok(at('<details id="latency-table"><summary>Latency (') > at('<h2 id="tables">'));
    assert.ok(at('<details id="disclosure"><summary>') > 0);
  });
  await t.step("the provider's quota beside the per-stage goodput: one line when no head stated a limit", async () => {
    const html = buildReport(run, POLICY).html;
    const at = (s: string) => html.indexOf(s);
    assert.ok(at('<details id="provider-quota" open>') > at('<details id="goodput-tables" open>'));
    assert.ok(html.includes('<p id="provider-quota-line">provider quota: no quota headers recorded</p>'));
    assert.ok(!html.includes("least requests left"), "no table without a stated limit");
    // The same run with its attempts stating limits (30 of 100 left, none refused): the table and the rules.
    const tables = fixtureTables();
    const stated = {
      ...tables,
      attempts: tables.attempts.map((a) => ({ ...a, rl_limit_requests: 100, rl_remaining_requests: 30 })),
    };
    const limited = await loadRun(writeRun(join(tmp, "limited"), fixtureManifest(), stated), {
      onWarning: () => {},
    });
    const with_ = buildReport(limited, POLICY).html;
    assert.match(with_, /<p id="provider-quota-line">provider quota: neither bound in this run/);
    assert.ok(with_.includes("<th>least requests left</th>"));
    assert.ok(with_.includes("<td>30/100 (30 %)</td>"));
  });
  await t.step("no headroom chosen: no limit applied; no knee found: the reason, and no limit", () => {
    const open = buildReport(run, POLICY, { extras: EXTRAS }).html;
    assert.ok(open.includes('<div class="gp-value">not applied</div><div class="gp-sub">no headroom chosen'));
    assert.ok(open.includes("choices marked in the first figure: 25 % → 0.9 req/s"));
    const none = buildReport(run, POLICY, {
      extras: { knee: { knee_rps: null, knee_note: "no knee found in 2 load levels", limits: [] } },
    });
    assert.ok(none.html.includes('<div class="gp-value">none</div><div class="gp-sub">no knee found in 2 load levels'));
    assert.match(none.figures[0]!.title, /\(no knee found in 2 load levels\)/);
    assert.equal(none.absent.find((a) => a.id === "goodput-vs-load:knee")?.reason, "no knee found in 2 load levels");
  });
  await t.step("runReportExtras() says why the knee search found no knee", () => {
    // Load levels: low (steady) and peak (burst); low is client-limited (2 of 14 not sent) and excluded, so one level
    // is tested, and one level has no knee.
    const { extras } = runReportExtras(run, POLICY, { headroom: 0.25 });
    assert.deepEqual(extras.knee, {
      knee_rps: null,
      knee_note: "no knee found in 1 load level (1 excluded)",
      limits: [],
      headroom: 0.25,
    });
    const r = buildReport(run, POLICY, { extras });
    assert.match(r.figures[0]!.title, /\(no knee found in 1 load level \(1 excluded\)\)$/);
    assert.ok(r.html.includes('<div class="gp-value">none</div><div class="gp-sub">no knee, so no limit'));
  });
  await t.step("a 1.0 log: the caveats say which columns it lacks", async () => {
    const old = await loadRun(writeRun(join(tmp, "old"), fixtureManifest(), fixtureTables(), 0), {
      onWarning: () => {},
    });
    const r = buildReport(old, POLICY);
    assert.deepEqual(r.caveats.map((c) => c.kind), ["client_limited", "log_lacks_fields", "unsupported_percentiles"]);
    assert.match(r.html, /NOTE<\/span> LOG LACKS FIELDS: a contract 1\.0 log/);
  });
  Deno.removeSync(tmp, { recursive: true });
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
    assert.match(r.stdout, /12 figures/);
    const html = Deno.readTextFileSync(out);
    assert.ok(html.includes("cost-waterfall"));
    // The SLO file by name and the start of its sha256, never by the folder it was read from.
    const hex = createHash("sha256").update(Deno.readFileSync(slo)).digest("hex");
    assert.ok(html.includes(`SLO file slo.json (sha256 ${hex.slice(0, 12)}…)`));
    assert.ok(!html.includes(tmp), "the report shows a local path");
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
