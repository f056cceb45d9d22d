import assert from "node:assert/strict";
import { join } from "node:path";
import pl from "nodejs-polars";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { sqlGoodput } from "../../../analysis/sql/sql_goodput.ts";
import { decideSqlRun, openSqlRun } from "../../../analysis/sql/sql_run.ts";
import { e2eDeadlines } from "../../../analysis/goodput/e2e_deadlines.ts";
import { InputError } from "../../../schema/errors.ts";
import { END_POLICY, HUNG_POLICY, writeHungRun, writeInterruptedRun, writeKilledRun } from "../run/_run_end_fixture.ts";
import { asShard, sha256, writeManifest, writeRun } from "../_fixture.ts";
import { asParquet, randomLog, randomManifest, writeHiveRun, writeParquetRun } from "./_random_log.ts";
import { productionManifest, writeProduction } from "../_production_fixture.ts";

const quiet = { onWarning: () => {} };

/** Rejects with an InputError whose message and problems match every pattern. */
async function refuses(dir: string, patterns: RegExp[], options = {}) {
  await assert.rejects(() => openSqlRun(dir, { ...quiet, ...options }), (e: Error) => {
    assert.ok(e instanceof InputError, `an InputError, got ${e}`);
    const text = [e.message, ...(e as InputError).problems].join("\n");
    for (const p of patterns) assert.match(text, p);
    return true;
  });
}

Deno.test("an interrupted run: the censored requests and the window's end are the polars path's", async () => {
  const tmp = Deno.makeTempDirSync();
  const dir = await asParquet(writeInterruptedRun(join(tmp, "csv")), join(tmp, "run"));
  const sql = await openSqlRun(dir, quiet);
  try {
    const { result } = await sqlGoodput(sql, END_POLICY);
    const want = goodput(await loadRun(dir, quiet), END_POLICY);
    assert.deepEqual({ ...result.disclosure.run_end }, { ...want.disclosure.run_end });
    assert.equal(result.disclosure.run_end.status, "interrupted");
    // The fixture's hand count (run_end_test.ts): m13, m14 censored; the window ends at m13's 16500 ms; 13 offered.
    assert.deepEqual(result.disclosure.run_end.censored_ids, ["m13", "m14"]);
    assert.deepEqual([result.disclosure.run_end.cut_ms, result.disclosure.run_end.after_cut], [16_500, 65]);
    assert.deepEqual([result.overall.offered, result.overall.accepted], [13, 12]);
    assert.deepEqual(result.overall, want.overall);
    assert.deepEqual(result.by_stage, want.by_stage);
    assert.deepEqual(result.disclosure.window, want.disclosure.window);
  } finally {
    sql.close();
  }
});

Deno.test("a stop during a hang under a policy: the decided and censored requests are the polars path's", async () => {
  const tmp = Deno.makeTempDirSync();
  // The target hangs from m10 (15000 ms); SIGINT at 20400 ms (run_end_test.ts has the hand count).
  const dir = await asParquet(writeHungRun(join(tmp, "csv"), 15_000, 20_400), join(tmp, "run"));
  const deadlines = e2eDeadlines(HUNG_POLICY, "hung.json");
  const want = goodput(await loadRun(dir, { ...quiet, deadlines }), HUNG_POLICY);
  const sql = await openSqlRun(dir, { ...quiet, deadlines });
  try {
    const { result } = await sqlGoodput(sql, HUNG_POLICY);
    assert.deepEqual({ ...result.disclosure.run_end }, { ...want.disclosure.run_end });
    // m10…m14 had run over 3000 ms at 20400: decided; m15…m20 censored; the window ends at m15's 17500 ms.
    assert.deepEqual(result.disclosure.run_end.decided_ids, ["m10", "m11", "m12", "m13", "m14"]);
    assert.equal(result.disclosure.run_end.cut_ms, 17_500);
    // Window main [10000, 17500): 15 offered, 9 accepted, the 5 decided late_e2e.
    assert.deepEqual([result.overall.offered, result.overall.accepted, result.overall.failures.late_e2e], [15, 9, 5]);
    assert.deepEqual(result.overall, want.overall);
    assert.deepEqual(result.by_stage, want.by_stage);
  } finally {
    sql.close();
  }
  const plain = await openSqlRun(dir, quiet);
  try {
    // Opened without deadlines: all 11 censored, the window at m10's 15000 ms; decided afterwards: the same as above.
    assert.deepEqual([plain.end.censored, plain.end.cut_ms], [11, 15_000]);
    const decided = await decideSqlRun(plain, deadlines);
    assert.deepEqual({ ...decided.end }, { ...want.disclosure.run_end });
    assert.deepEqual(decided.manifest.stages.map((s) => s.end_ms), [10_000, 17_500]);
    assert.equal(plain.end.cut_ms, 15_000); // the input is not changed
    const { result } = await sqlGoodput(decided, HUNG_POLICY);
    assert.deepEqual(result.overall, want.overall);
  } finally {
    plain.close();
  }
});

Deno.test("openSqlRun() refuses what the SQL path cannot count right, naming the file", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const log = randomLog(11, 60);

  await t.step("a killed run: its missing rows are restored by the polars path only", async () => {
    const dir = await asParquet(writeKilledRun(join(tmp, "killed-csv")), join(tmp, "killed"));
    await refuses(dir, [/killed before finalising/, /result\.status is "running"/, /deno task analyze/]);
  });

  await t.step("a production recording: its parts are read by analyze, not by the SQL path", async () => {
    const dir = writeProduction(join(tmp, "recording"), productionManifest(), [{ format: "parquet", requests: [] }]);
    await refuses(dir, [/recording\/run\.json: a production recording/, /deno task analyze/]);
  });

  await t.step("a CSV log: the SQL path reads Parquet", async () => {
    const dir = writeRun(join(tmp, "csv"), randomManifest(), log);
    await refuses(dir, [/requests\.csv: the SQL path reads Parquet/]);
  });

  await t.step("a file changed after run.json was written (warn reads it, loudly)", async () => {
    const dir = writeParquetRun(join(tmp, "changed"), randomManifest(), log);
    const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
    writeManifest(dir, { ...m, files: { ...m.files, "attempts.parquet": "0".repeat(64) } });
    await refuses(dir, [/attempts\.parquet: sha256 [0-9a-f]+ does not match run\.json/]);
    const warnings: string[] = [];
    const run = await openSqlRun(dir, { verify: "warn", onWarning: (w) => warnings.push(w) });
    run.close();
    assert.match(warnings.join("\n"), /UNVERIFIED LOG: .*attempts\.parquet/);
  });

  await t.step("a hive-partitioned file run.json does not list", async () => {
    const dir = writeHiveRun(join(tmp, "hive"), randomManifest(), log, 2);
    const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
    delete m.files["requests/shard=1/part.parquet"];
    writeManifest(dir, m);
    await refuses(dir, [/requests\/shard=1\/part\.parquet: not listed in run\.json files/, /--verify warn/]);
  });

  await t.step("a hive layout under a folder named key=value (it would be read as a column)", async () => {
    const dir = writeHiveRun(join(tmp, "class=x", "hive"), randomManifest(), log, 2);
    await refuses(dir, [/hive partitioning would read as columns/, /class=x/]);
  });

  await t.step("nulls in a never-null column, rows of another run, unknown outcomes", async () => {
    const dir = writeParquetRun(join(tmp, "bad-rows"), randomManifest(), log);
    const file = join(dir, "requests.parquet");
    const df = pl.readParquet(file);
    const n = df.height;
    df.withColumns(
      pl.when(pl.col("request_id").eq(pl.lit(log.requests[0]!.request_id))).then(pl.lit(null)).otherwise(
        pl.col("scheduled_ms"),
      ).alias("scheduled_ms"),
      pl.when(pl.col("request_id").eq(pl.lit(log.requests[1]!.request_id))).then(pl.lit("other-run")).otherwise(
        pl.col("run_id"),
      ).alias("run_id"),
      pl.when(pl.col("request_id").eq(pl.lit(log.requests[2]!.request_id))).then(pl.lit("lost")).otherwise(
        pl.col("outcome"),
      ).alias("outcome"),
    ).writeParquet(file);
    assert.equal(pl.readParquet(file).height, n);
    const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
    writeManifest(dir, { ...m, files: { ...m.files, "requests.parquet": sha256(file) } });
    await refuses(dir, [
      /requests\.parquet: scheduled_ms: 1 null values in a column that is never null/,
      /requests\.parquet: run_id: 1 rows whose run_id is not run\.json run_id "random-run"/,
      /requests\.parquet: outcome: unknown values "lost"/,
    ]);
  });

  await t.step(
    "times out of their order: a request completed before its action, an attempt's last token before its first",
    async () => {
      const done = log.requests.filter((r) => r.completed_ms !== null).map((r) => r.request_id).sort();
      const answered = log.attempts.filter((a) => a.first_token_ms !== null).map((a) => a.request_id).sort();
      const early = new Set(done.slice(0, 2));
      const requests = log.requests.map((r) =>
        early.has(r.request_id) ? { ...r, completed_ms: r.scheduled_ms - 0.5 } : r
      );
      const attempts = log.attempts.map((a) =>
        a.request_id === answered[0] ? { ...a, last_token_ms: a.first_token_ms! - 1 } : a
      );
      // One table at a time: the checks stop at the first table with a problem.
      await refuses(writeParquetRun(join(tmp, "early-completion"), randomManifest(), { ...log, requests }), [
        new RegExp(
          `requests\\.parquet: completed_ms: 2 rows before their scheduled_ms \\(e\\.g\\. request_id "${done[0]}"\\)`,
        ),
      ]);
      await refuses(writeParquetRun(join(tmp, "early-last-token"), randomManifest(), { ...log, attempts }), [
        new RegExp(
          `attempts\\.parquet: last_token_ms: \\d+ rows before their first_token_ms \\(e\\.g\\. request_id "${
            answered[0]
          }"\\)`,
        ),
      ]);
    },
  );

  await t.step("a count below 0 and a time that is not finite", async () => {
    const [a, b] = log.requests.filter((r) => r.completed_ms !== null).map((r) => r.request_id).sort();
    const requests = log.requests.map((r) =>
      r.request_id === a ? { ...r, output_tokens: -1 } : r.request_id === b ? { ...r, completed_ms: Infinity } : r
    );
    await refuses(writeParquetRun(join(tmp, "bounds"), randomManifest(), { ...log, requests }), [
      new RegExp(
        `requests\\.parquet: output_tokens: 1 rows with a value below 0, which the contract does not allow \\(e\\.g\\. request_id "${a}"\\)`,
      ),
      new RegExp(
        `requests\\.parquet: completed_ms: 1 rows with a value that is not finite \\(NaN or infinite\\), which the contract does not allow \\(e\\.g\\. request_id "${b}"\\)`,
      ),
    ]);
  });

  await t.step("a send lag and a token gap below 0", async () => {
    const lagged = log.requests.find((r) => r.completed_ms !== null)!.request_id;
    const requests = log.requests.map((r) => r.request_id === lagged ? { ...r, send_lag_ms: -0.5 } : r);
    await refuses(writeParquetRun(join(tmp, "negative-lag"), randomManifest(), { ...log, requests }), [
      new RegExp(`requests\\.parquet: send_lag_ms: 1 rows with a value below 0.*request_id "${lagged}"`),
    ]);
    const gapped = log.attempts[0]!.request_id;
    const attempts = log.attempts.map((a, i) => i === 0 ? { ...a, itl_max_ms: -2 } : a);
    await refuses(writeParquetRun(join(tmp, "negative-gap"), randomManifest(), { ...log, attempts }), [
      new RegExp(`attempts\\.parquet: itl_max_ms: 1 rows with a value below 0.*request_id "${gapped}"`),
    ]);
  });

  await t.step("an attempt in two rows, and an attempt without its request", async () => {
    const first = [...log.attempts].sort((a, b) =>
      a.request_id < b.request_id ? -1 : a.request_id > b.request_id ? 1 : a.round - b.round || a.attempt - b.attempt
    )[0]!;
    const twice = { ...log, attempts: [...log.attempts, { ...first }] };
    await refuses(writeParquetRun(join(tmp, "attempt-twice"), randomManifest(), twice), [
      /an attempt in two rows/,
      new RegExp(
        `1 attempts \\(request_id, round, attempt\\) appear in more than one row of its attempts log \\(e\\.g\\. \\["${first.request_id}",${first.round},${first.attempt}\\]\\)`,
      ),
    ]);
    const stray = { ...log, attempts: [...log.attempts, { ...first, request_id: "zz-none" }] };
    await refuses(writeParquetRun(join(tmp, "attempt-stray"), randomManifest(), stray), [
      /rows without their request/,
      /attempts\.parquet: 1 attempts rows name a request_id that no row of .*requests\.parquet holds \(e\.g\. zz-none\)/,
    ]);
  });

  await t.step("a request id in two rows of one folder's log", async () => {
    const twice = { ...log, requests: [...log.requests, log.requests[3]!] };
    await refuses(writeParquetRun(join(tmp, "twice"), randomManifest(), twice), [
      /a request in two rows/,
      new RegExp(
        `1 request_id values appear in more than one row of the requests log \\(e\\.g\\. ${
          log.requests[3]!.request_id
        }\\)`,
      ),
    ]);
  });

  await t.step("an attempt number the final-attempt key cannot order", async () => {
    const big = { ...log, attempts: log.attempts.map((a, i) => (i === 0 ? { ...a, attempt: 1_000_000 } : a)) };
    const dir = writeParquetRun(join(tmp, "big-attempt"), randomManifest(), big);
    await refuses(dir, [/attempts\.parquet: attempt: 1 rows numbered above 999998/]);
  });

  await t.step("a request in two shards", async () => {
    const root = join(tmp, "dupes");
    for (const i of [0, 1]) writeParquetRun(join(root, `shard-${i}-of-2`), asShard(randomManifest(), i, 2), log);
    await refuses(root, [/request_id values appear in more than one row of the shards' requests logs/]);
  });

  await t.step("a missing column of the log's contract version", async () => {
    const dir = writeParquetRun(join(tmp, "no-col"), randomManifest(), log);
    const file = join(dir, "attempts.parquet");
    pl.readParquet(file).drop("round").writeParquet(file);
    const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
    writeManifest(dir, { ...m, files: { ...m.files, "attempts.parquet": sha256(file) } });
    await refuses(dir, [/attempts\.parquet: missing columns: round/]);
  });
});
