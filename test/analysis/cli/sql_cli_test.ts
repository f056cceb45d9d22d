import assert from "node:assert/strict";
import { join } from "node:path";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import { writeRun } from "../_fixture.ts";
import { asParquet } from "../sql/_random_log.ts";
import { runCli } from "../../support/run_cli.ts";

const CLI = new URL("../../../analysis/cli/sql.ts", import.meta.url).pathname;

const sql = (...args: string[]) => runCli(CLI, args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

Deno.test("the sql CLI", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const csv = writeRun(join(tmp, "csv"), fixtureManifest(), fixtureTables());
  const run = await asParquet(csv, join(tmp, "run"));
  const slo = join(tmp, "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(POLICY));

  await t.step("prints the disclosure, the goodput tables and the percentiles, as analyze counts them", async () => {
    const r = await sql(run, "--slo", slo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^engine: DuckDB/m);
    assert.match(r.stdout, /^denominator: offered$/m);
    assert.match(r.stdout, /measurement_seconds = 20/);
    assert.match(r.stdout, /^inclusion rules:$/m);
    // 23 offered, 21 sent, 15 completed, 5 accepted in 20 s: 0.25/s, 5/23 = 0.2174, 18/23 = 0.7826 (hand_fixture.ts).
    assert.match(r.stdout, /^all\s+23\s+21\s+15\s+5\s+20\.0\s+0\.2500\s+0\.2174\s+0\.7826\s+rejected=1/m);
    assert.match(r.stdout, /^peak\s+9\s+9\s+9\s+2\s+10\.0\s+0\.2000/m);
    // e2e of the 15 completed: p50 = rank 8 = 800, p95 = p99 = rank 15 = 4000 ms (sql_goodput_test.ts).
    assert.match(r.stdout, /^all\s+e2e_ms\s+15\s+0\s+800\s+4000\s+4000$/m);
  });

  await t.step("--json: the same fields as analyze's goodput, the percentiles and the sweep", async () => {
    const r = await sql(
      run,
      "--slo",
      slo,
      "--json",
      "--denominator",
      "completed",
      "--sweep",
      "e2e_ms",
      "--limits",
      "4000,1000",
    );
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j), [
      "engine",
      "disclosure",
      "overall",
      "by_class",
      "by_stage",
      "by_mode",
      "latency",
      "sweep",
    ]);
    assert.equal(j.disclosure.denominator, "completed");
    assert.equal(j.overall.slo_miss_rate, 10 / 15);
    // Overall at 1000 ms: q1 q14 q15 (qa); at 4000 ms also j2 and o1 (sql_goodput_test.ts); completed = 15.
    const overall = j.sweep.rows.filter((row: { class: string | null }) => row.class === null);
    assert.deepEqual(overall.map((row: { limit_ms: number; accepted: number }) => [row.limit_ms, row.accepted]), [
      [1000, 3],
      [4000, 5],
    ]);
    assert.equal(overall[1].acceptance_rate, 5 / 15);
  });

  await t.step("--print-sql prints the views and the portable queries, and runs nothing", async () => {
    const r = await sql(run, "--slo", slo, "--print-sql", "--sweep", "ttft_ms");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^CREATE OR REPLACE VIEW requests AS$/m);
    assert.match(r.stdout, /^-- the goodput tables\nWITH$/m);
    assert.match(r.stdout, /percentile_disc\(0\.95\) WITHIN GROUP \(ORDER BY e2e_ms\)/);
    assert.match(r.stdout, /^-- SLO sweep of ttft_ms$/m);
    assert.doesNotMatch(r.stdout, /^overall$/m);
  });

  await t.step("bad input exits 2 naming every problem, never a stack trace", async () => {
    const r = await sql(csv, "--slo", slo, "--sweep", "e2e_ms", "--limits", "100,-1");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--limits 100,-1: expected comma-separated positive numbers/);
    assert.match(r.stderr, /requests\.csv: the SQL path reads Parquet/);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
    // --limits without --sweep would be silently ignored; a bad --memory-limit was DuckDB's error, without the flag.
    const bounds = await sql(run, "--slo", slo, "--limits", "100,200", "--memory-limit", "lots");
    assert.equal(bounds.code, 2);
    assert.match(bounds.stderr, /invalid input \(2 problems\)/);
    assert.match(bounds.stderr, /--limits needs --sweep METRIC/);
    assert.match(bounds.stderr, /--memory-limit: expected a size above 0 with a unit B, KB, .*got "lots"/);
    assert.doesNotMatch(bounds.stderr, /\bat .*\.ts:\d+/);
    const sized = await sql(run, "--slo", slo, "--memory-limit", "512MiB");
    assert.equal(sized.code, 0, sized.stderr);
    const noSlo = await sql(run);
    assert.equal(noSlo.code, 2);
    assert.match(noSlo.stderr, /an SLO policy is required: workload "fixture"/);
  });
});
