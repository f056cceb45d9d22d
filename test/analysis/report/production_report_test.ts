/**
 * A production recording analysed and reported like any run, saying what its numbers mean: offered = the user
 * actions observed and sampled (with the estimate of all of them), the observation window as measurement seconds,
 * the app and its version as frozen conditions, no client-limited verdict, the dropped records as lower bounds, and
 * where the wait went.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { formatGoodput } from "../../../analysis/goodput/format_goodput.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { runVerdicts } from "../../../analysis/knee/verdicts.ts";
import { runWindow } from "../../../analysis/goodput/policy.ts";
import { buildReport } from "../../../analysis/report/report.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import {
  PRODUCTION_CLIENT_RULE,
  PRODUCTION_OFFERED_RULE,
  PRODUCTION_SECONDS_RULE,
} from "../../../analysis/run/production_run.ts";
import { runCli } from "../../support/run_cli.ts";
import { productionManifest } from "../_production_fixture.ts";
import { tables, WAIT_POLICY } from "../latency/_wait_fixture.ts";
import { writeProduction } from "../_production_fixture.ts";

const QUIET = { onWarning: () => {} };
const DROPPED = { requests: 3, attempts: 1, tools: 0, phases: 2, page_records_unjoined: 4, recorder_errors: 1 };

/** The wait fixture's five tasks in one Parquet part, sampled at rate 0.25, with records dropped. */
function sampled(): string {
  const t = tables();
  const m = productionManifest({ sampling: { rate: 0.25, rule: "sha256(request_id) < 0.25" }, dropped: DROPPED });
  return writeProduction(join(Deno.makeTempDirSync(), "rec"), m, [{ format: "parquet", ...t }]);
}

Deno.test("goodput of a recording says what offered and measurement seconds mean, and estimates all actions", async () => {
  const run = await loadRun(sampled(), QUIET);
  const g = goodput(run, WAIT_POLICY);
  const p = g.disclosure.production!;
  // A, B, C, D, F: 5 sampled actions, all in w0000 (0–10 s); w0001 (10–20 s) none.
  assert.equal(g.overall.offered, 5);
  // 5 sampled at rate 0.25: 5 / 0.25 = 20 user actions, an estimate.
  assert.equal(p.estimated_user_actions, 20);
  assert.deepEqual(p.windows, [
    { stage: "w0000", seconds: 10, sampled_actions: 5, observed_rps: 0.5, estimated_rps: 2 },
    { stage: "w0001", seconds: 10, sampled_actions: 0, observed_rps: 0, estimated_rps: 0 },
  ]);
  assert.equal(g.overall.measurement_seconds, 20);
  assert.deepEqual(p.app, { name: "chat-app", version: "1.4.2" });
  assert.equal(g.disclosure.imported, null);
  const rules = g.disclosure.inclusion_rules;
  assert.match(rules[0]!, /^PRODUCTION RECORDING of chat-app 1\.4\.2: the user actions of a live app/);
  for (const rule of [PRODUCTION_OFFERED_RULE, PRODUCTION_SECONDS_RULE, PRODUCTION_CLIENT_RULE]) {
    assert.ok(rules.includes(rule), rule);
  }
  assert.ok(rules.includes(
    "frozen conditions: app chat-app 1.4.2; model=sim-llm, region=local; route app; " +
      "recorder goodput-recorder 0.1.0 on deno 2.9.6",
  ));
  assert.ok(rules.some((r) => r.startsWith("sampling: rate 0.25 (rule: sha256(request_id) < 0.25)")));
  const dropped = rules.find((r) => r.startsWith("DROPPED RECORDS"))!;
  assert.match(dropped, /dropped 3 requests, 1 attempts, 0 tools and 2 phases rows/);
  assert.match(dropped, /offered, completed and accepted are lower bounds/);
  const text = formatGoodput(g);
  assert.match(
    text,
    /^production recording: app chat-app 1\.4\.2; sampling rate 0\.25 .* 5 sampled user actions in the window ≈ 20 user actions in all/m,
  );
  assert.match(
    text,
    /^stage windows \(observed rate = sampled actions \/ window seconds\): w0000 10 s 5 actions 0\.5\/s \(≈ 2\/s all\)/m,
  );
});

Deno.test("a recording's verdicts: its headline and its dropped records first, no client verdict", async () => {
  const run = await loadRun(sampled(), QUIET);
  const v = runVerdicts(run, runWindow(run, WAIT_POLICY.window));
  assert.equal(v.lines.length, 2);
  assert.match(
    v.lines[0]!,
    /^PRODUCTION RECORDING of chat-app 1\.4\.2, observed from .* \(closed\): offered = the user actions observed and sampled \(rate 0\.25: all actions ≈ offered \/ 0\.25, an estimate\)/,
  );
  assert.match(v.lines[1]!, /^DROPPED RECORDS: /);
});

Deno.test("the report of a recording: verdict line, caveat lines, where the wait went", async () => {
  const run = await loadRun(sampled(), QUIET);
  const r = buildReport(run, WAIT_POLICY);
  assert.deepEqual(r.caveats.filter((c) => c.kind !== "unsupported_percentiles").map((c) => [c.kind, c.severity]), [
    ["dropped_records", "alert"],
    ["run_source", "note"],
  ]);
  // Dropped records are a WARNING, the recording's meaning a NOTE: no INVALID caveat, so the verdict is VALID; both
  // are one line each under the cards, before the figures.
  assert.deepEqual(r.caveats.filter((c) => c.kind !== "unsupported_percentiles").map((c) => c.level), [
    "WARNING",
    "NOTE",
  ]);
  assert.match(
    r.html,
    /<p class="gp-verdict-line gp-valid"><b>VALID<\/b>: no verdict against these numbers; \d caveats/,
  );
  const cards = r.html.indexOf('<div class="gp-headline">'), figures = r.html.indexOf('<h2 id="figures">');
  for (const s of ["WARNING</span> DROPPED RECORDS: ", "NOTE</span> PRODUCTION RECORDING of chat-app"]) {
    assert.ok(r.html.indexOf(s) > cards && r.html.indexOf(s) < figures, s);
  }
  assert.ok(!r.html.includes("CLIENT-LIMITED"));
  assert.ok(r.figures.some((f) => f.id === "wait-breakdown"));
  assert.match(r.html, /<details id="wait-breakdown-table" open><summary>Where the wait went: .*\(production run\)/);
  // The accepted table (A, B of chat; D of summarize): network is B's alone, 58 ms of its 1000: mean share 5.8 %;
  // pooled over chat's 2000 ms waited 2.9 %, over all 2700 ms (1000 + 1000 + 700) 2.1 %; summarize measured none.
  const section = r.html.slice(r.html.indexOf('<details id="wait-breakdown-table"'));
  const accepted = section.slice(0, section.indexOf("completed tasks"));
  assert.ok(
    accepted.includes(
      "<tr><td>network</td><td>5.8 % (pooled 2.9 %); 58 / 58 ms; n 1</td><td>n/a</td>" +
        "<td>5.8 % (pooled 2.1 %); 58 / 58 ms; n 1</td></tr>",
    ),
  );
});

Deno.test("deno task analyze on a recording prints its verdict, its meaning and where the wait went", async () => {
  const slo = join(Deno.makeTempDirSync(), "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(WAIT_POLICY));
  const cli = new URL("../../../analysis/cli/analyze.ts", import.meta.url).pathname;
  const r = await runCli(cli, [sampled(), "--slo", slo]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^VALID: no verdict against these numbers/);
  assert.match(r.stdout, /^NOTE {4}PRODUCTION RECORDING of chat-app 1\.4\.2/m);
  // The whole text of the cut line at the end.
  assert.match(r.stdout, /^NOTE PRODUCTION RECORDING of chat-app 1\.4\.2.*rate 0\.25/m);
  assert.match(r.stdout, /^where the wait went \(production run prod-run;/m);
  assert.match(r.stdout, /^accepted tasks \(3\):$/m);
});
