/**
 * `npx deno task compare` answers a buyer (issue 31) on the demo's three committed route runs: the ranked verdict with
 * its intervals first, the cost at a stated demand, break-even prices; a demand above every route's measured capacity
 * needs `--extrapolate`, a range that leaves out the price and paired intervals over different schedules are refused
 * with exit 2, each naming its flag.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../support/run_cli.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const CLI = join(ROOT, "analysis/cli/compare.ts");
const RUNS = ["route-hosted", "route-selfhosted", "route-hybrid"].map((r) => join(ROOT, "data/runs", r));
const PRICES = join(ROOT, "data/prices/routes-sim.json");

const compareCli = (...args: string[]) =>
  runCli(CLI, args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"], { timeoutMs: 120_000 });

Deno.test("compare answers a buyer on the demo's routes", async (t) => {
  const base = [...RUNS, "--prices", PRICES, "--headroom", "0.2"];

  await t.step(
    "the ranked verdict leads, then the ranks, the cost at the demand and the break-even prices",
    async () => {
      const r = await compareCli(...base, "--demand", "8/s", "--monthly", "10M");
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split("\n");
      // Line 1 is the validity of the numbers; line 2 the answer: the cheapest route, or why none can be named yet.
      assert.match(lines[0]!, /^(VALID|INVALID|CAUTION)/);
      assert.match(lines[1]!, /^verdict: .*USD per accepted task under the stated SLO and gates/);
      assert.match(r.stdout, /^ranked by cost per accepted task/m);
      assert.match(r.stdout, /^ranked by accepted goodput at the production limit/m);
      assert.match(r.stdout, /^cost at the planned volume: peak 8 accepted tasks\/s, 10000000 accepted tasks a month/m);
      assert.match(r.stdout, /^what would change the answer/m);
      assert.match(r.stdout, /break-even/);
    },
  );

  await t.step("--json holds the decision, the volume and the sensitivity", async () => {
    const r = await compareCli(...base, "--demand", "8/s", "--monthly", "10M", "--json");
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(j.decision.routes.map((x: { route: string }) => x.route).sort(), [
      "hosted",
      "hybrid",
      "selfhosted",
    ]);
    for (const x of j.decision.routes) assert.ok(x.cost_per_accepted.lo <= x.cost_per_accepted.point);
    assert.equal(j.volume.routes.length, 3);
    assert.ok(j.sensitivity.break_even.length > 0);
  });

  await t.step("a demand above every route's measured capacity needs --extrapolate", async () => {
    const refused = await compareCli(...base, "--demand", "40/s", "--monthly", "10M");
    assert.equal(refused.code, 2, refused.stdout);
    assert.match(refused.stderr, /--demand 40\/s is above every route's measured capacity; pass --extrapolate/);
    const extra = await compareCli(...base, "--demand", "40/s", "--monthly", "10M", "--extrapolate");
    assert.equal(extra.code, 0, extra.stderr);
    assert.match(extra.stdout, /EXTRAPOLATION/);
  });

  await t.step("a range that does not contain the price is refused, naming --range", async () => {
    const r = await compareCli(...base, "--range", "gpu_hour=5:6");
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /--range/);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
  });

  await t.step("paired intervals over runs of different schedules are refused; --unpaired compares them", async () => {
    // The same workload on another schedule (the explore run): comparable only when forced, never paired.
    const other = join(ROOT, "data/runs/explore");
    const anyRoute = join(ROOT, "data/prices/hosted-sim.json");
    const r = await compareCli(RUNS[0]!, other, "--prices", anyRoute, "--force");
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /schedule/);
    assert.match(r.stderr, /--unpaired/);
    const unpaired = await compareCli(RUNS[0]!, other, "--prices", anyRoute, "--force", "--unpaired");
    assert.equal(unpaired.code, 0, unpaired.stderr);
    assert.match(unpaired.stdout, /^verdict: .*unpaired interval/m);
    assert.ok(!/ paired interval/.test(unpaired.stdout), "no difference is called paired");
  });
});
