import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { withoutBatchRoutes } from "../../../analysis/knee/levels.ts";
import type { LoadedRun } from "../../../analysis/run/mod.ts";

Deno.test("the knee leaves out a batch route's requests, with one disclosure line naming the route and its count", () => {
  const requests = pl.DataFrame({
    request_id: ["r1", "r2", "r3", "r4"],
    route: ["live", "night", "night", "live"],
  });
  const run = {
    dir: "runs/x",
    manifest: { routing: { routes: { live: { limits: {} }, night: { limits: {}, batch: { window_s: 60 } } } } },
    requests,
  } as unknown as LoadedRun;
  const rows = pl.DataFrame({ request_id: ["r1", "r2", "r3", "r4"], outcome: ["ok", "ok", "timeout", "ok"] });
  const { kept, disclosures } = withoutBatchRoutes(run, rows);
  assert.deepEqual(kept.getColumn("request_id").toArray(), ["r1", "r4"]);
  assert.deepEqual(kept.columns, ["request_id", "outcome"]);
  assert.equal(disclosures.length, 1);
  assert.match(disclosures[0]!, /2 request\(s\) of batch route "night" left out of the knee and capacity/);
  // A run without batch routes is untouched.
  const plain = { ...run, manifest: { routing: { routes: { live: { limits: {} } } } } } as unknown as LoadedRun;
  assert.equal(withoutBatchRoutes(plain, rows).kept.height, 4);
  assert.deepEqual(withoutBatchRoutes(plain, rows).disclosures, []);
});
