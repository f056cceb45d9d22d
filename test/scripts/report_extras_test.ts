import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { analysisCli } from "../../scripts/_analysis_cli.ts";
import { demoReportExtras } from "../../scripts/_report_extras.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROUTES = ["data/runs/route-hosted", "data/runs/route-selfhosted", "data/runs/route-hybrid"];
const PRICING = ["--overheads", "data/prices/overheads-default.json"];

Deno.test("demoReportExtras() carries the knee, outage, ledger and route figures of the CLIs' JSON unchanged", async (t) => {
  const [knee, ledger, compare] = await Promise.all([
    analysisCli(ROOT, "knee", ["data/runs/explore", "--headroom", "0.2", "--json"]),
    analysisCli(ROOT, "ledger", [
      "data/runs/explore",
      "--prices",
      "data/prices/selfhosted-sim.json",
      ...PRICING,
      "--json",
    ]),
    analysisCli(ROOT, "compare", [...ROUTES, "--prices", "data/prices/routes-sim.json", ...PRICING, "--json"]),
  ]).then((outs) => outs.map((o) => JSON.parse(o)));
  const extras = demoReportExtras(knee, ledger, compare);

  await t.step("knee rate, signal, the limit choices and the chosen headroom", () => {
    assert.equal(extras.knee!.knee_rps, knee.knee_offered_rps);
    assert.equal(extras.knee!.headroom, 0.2);
    assert.equal(extras.knee!.knee_signal, knee.first_degrading_signal ?? knee.knee_source);
    assert.deepEqual(
      extras.knee!.limits.map((l) => l.rps),
      knee.limit.choices.map((c: { limit_rps: number }) => c.limit_rps),
    );
  });
  await t.step("the ledger components add up to the ledger's total", () => {
    const sum = extras.ledger!.components.reduce((s, c) => s + c.amount, 0);
    assert.ok(Math.abs(sum - ledger.overall.total) < 1e-9, `${sum} vs ${ledger.overall.total}`);
    assert.equal(extras.ledger!.accepted_tasks, ledger.overall.accepted);
  });
  await t.step("one route bar per route, with compare's cost per accepted task", () => {
    assert.deepEqual(extras.routes!.routes.map((r) => r.route), ["hosted", "selfhosted", "hybrid"]);
    for (const [i, r] of extras.routes!.routes.entries()) {
      assert.equal(r.cost_per_accepted_task, compare.routes[i].extras["cost/accepted USD"]);
      assert.equal(r.n, compare.routes[i].overall.offered);
    }
  });
  await t.step("the route figure names the SLO file by name and sha256, never by its folder", () => {
    // compare --json: slo_file is the path as given (the folder included), slo_source the report's label
    assert.match(compare.slo_source, /^design-v1\.json \(sha256 [0-9a-f]{12}…\)$/);
    assert.ok(extras.routes!.disclosure.includes(`SLO ${compare.slo_source};`));
    assert.ok(!extras.routes!.disclosure.includes("/"), extras.routes!.disclosure);
  });
  await t.step("the outage the knee CLI detected", () => {
    const detected = knee.recovery[0].recovery.outages.outages;
    assert.deepEqual(extras.outages!.map((o) => o.start_ms), detected.map((o: { start_ms: number }) => o.start_ms));
  });
  await t.step("a comparison without prices is refused, naming the missing column", () => {
    const unpriced = {
      ...compare,
      routes: compare.routes.map((r: { extras: object }) => ({ ...r, extras: {} })),
    };
    assert.throws(() => demoReportExtras(knee, ledger, unpriced), /cost\/accepted/);
  });
});
