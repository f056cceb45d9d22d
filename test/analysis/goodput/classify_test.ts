import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { classify, tpotFrame } from "../../../analysis/goodput/classify.ts";
import { resolveWindow } from "../../../analysis/goodput/policy.ts";
import type { AttemptRow } from "../../../schema/events.ts";
import { tableDtypes } from "../../../analysis/run/_dtypes.ts";
import { COLUMNS } from "../../../schema/events.ts";
import { att } from "../_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { completeRunEnd } from "../../../analysis/run/run_end.ts";

function attempts(rows: AttemptRow[]): pl.DataFrame {
  const dtypes = tableDtypes("attempts");
  return pl.DataFrame(
    COLUMNS.attempts.map((c) => pl.Series(c, rows.map((r) => r[c as keyof AttemptRow] ?? null), dtypes[c])),
  );
}

Deno.test("tpotFrame() takes the final answered attempt of the last round", async (t) => {
  const a = (id: string, round: number, attempt: number, ft: number | null, lt: number | null, out: number) =>
    att({ request_id: id, sent_ms: 0, round, attempt, first_token_ms: ft, last_token_ms: lt, output_tokens: out });
  const rows = [
    // x: round 1 is last; of its attempts 0 and 2 answered (1 failed): attempt 2 counts: (1300 − 100) / (13 − 1) = 100.
    a("x", 0, 0, 0, 5000, 51), // an earlier round, ignored even though it is slower
    a("x", 1, 2, 100, 1300, 13),
    a("x", 1, 1, null, null, 0),
    a("x", 1, 0, 50, 2050, 11), // (2050 − 50) / 10 = 200: a lower attempt, ignored
    // y: the last round has no answered attempt: no TPOT, even though round 0 has one.
    a("y", 0, 0, 0, 1000, 11),
    a("y", 1, 0, null, null, 0),
    // z: one output token: TPOT undefined.
    a("z", 0, 0, 10, 10, 1),
    // w: (900 − 100) / (5 − 1) = 200.
    a("w", 0, 0, 100, 900, 5),
  ];
  const got = Object.fromEntries(
    tpotFrame(attempts(rows)).toRecords().map((r) => [r.request_id as string, r.tpot_ms as number | null]),
  );
  await t.step("values", () => assert.deepEqual(got, { x: 100, y: null, z: null, w: 200 }));
  await t.step("does not depend on the attempts' row order", () => {
    const reversed = tpotFrame(attempts([...rows].reverse())).sort("request_id");
    assert.ok(reversed.frameEqual(tpotFrame(attempts(rows)).sort("request_id"), true));
  });
});

Deno.test("classify() returns the window's requests in their row order with the reason as text", () => {
  const { requests, attempts: atts } = fixtureTables();
  const toFrame = <T extends object>(table: "requests" | "attempts" | "phases", rows: T[]) => {
    const dtypes = tableDtypes(table);
    return pl.DataFrame(
      (COLUMNS[table] as readonly string[]).map((c) =>
        pl.Series(c, rows.map((r) => (r as Record<string, unknown>)[c] ?? null), dtypes[c])
      ),
    );
  };
  const manifest = fixtureManifest();
  const run: LoadedRun = {
    dir: "mem",
    manifest,
    manifests: [manifest],
    format: "csv",
    requests: toFrame("requests", [...requests].reverse()),
    attempts: toFrame("attempts", atts),
    tools: pl.DataFrame({}),
    server: null,
    phases: toFrame("phases", []),
    end: completeRunEnd(manifest.stages),
    warnings: [],
  };
  const rows = classify(run, POLICY, resolveWindow(manifest.stages, POLICY.window));
  const window = resolveWindow(manifest.stages, POLICY.window).intervals;
  const inWindow = [...requests].reverse()
    .filter((r) => window.some(([a, b]) => r.scheduled_ms >= a && r.scheduled_ms < b))
    .map((r) => r.request_id);
  assert.deepEqual(rows.getColumn("request_id").toArray(), inWindow);
  assert.equal(String(rows.getColumn("reason").dtype), "DataType(String)");
  const accepted = rows.getColumn("accepted").toArray() as boolean[];
  const reasons = rows.getColumn("reason").toArray() as (string | null)[];
  assert.ok(accepted.every((x, i) => x === (reasons[i] === null)));
  // The hand fixture: 23 requests in the window, 5 accepted, 2 slow_tpot (goodput_fixture_test.ts).
  assert.equal(rows.height, 23);
  assert.equal(accepted.filter(Boolean).length, 5);
  assert.equal(reasons.filter((r) => r === "slow_tpot").length, 2);
});
