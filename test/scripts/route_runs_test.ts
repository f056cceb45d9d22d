import assert from "node:assert/strict";
import { routeRunId, SIM_ROUTES, type SimRoute } from "../../scripts/_route_runs.ts";
import { RUN_NAME_MAX, runNameProblem } from "../../schema/run_name.ts";

const ROUTES = Object.keys(SIM_ROUTES) as SimRoute[];

Deno.test("routeRunId() gives the route runs of two demo runs different ids, the sample runs their committed names", async (t) => {
  await t.step("the sample runs keep route-hosted, route-selfhosted, route-hybrid (data/runs/)", () => {
    assert.deepEqual(ROUTES.map((r) => routeRunId(r)), ["route-hosted", "route-selfhosted", "route-hybrid"]);
  });

  await t.step("two demo runs: six distinct ids, each after its timeline run's id", () => {
    const a = "demo-timeline-20261206T044000Z";
    const b = "demo-timeline-20261206T050000Z";
    const ids = [a, b].flatMap((t) => ROUTES.map((r) => routeRunId(r, t)));
    assert.equal(new Set(ids).size, 6);
    assert.equal(routeRunId("hosted", a), "demo-timeline-20261206T044000Z-route-hosted");
    for (const id of ids) assert.equal(runNameProblem(id), null);
  });

  await t.step("a timeline id of the longest length loses its head and keeps its time stamp, within 128", () => {
    const long = `${"p".repeat(RUN_NAME_MAX - 17)}-20261206T044000Z`;
    const id = routeRunId("selfhosted", long);
    // 128 − "-route-selfhosted" (17) = 111 characters of the timeline id, its tail.
    assert.equal(id.length, RUN_NAME_MAX);
    assert.ok(id.endsWith("-20261206T044000Z-route-selfhosted"), id);
    assert.equal(runNameProblem(id), null);
    // A tail that would start with "." drops the dots: still a valid run name.
    assert.equal(runNameProblem(routeRunId("hybrid", `${"x".repeat(20)}${".".repeat(120)}z`)), null);
  });
});
