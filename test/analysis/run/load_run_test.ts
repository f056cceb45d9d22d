import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { InputError } from "../../../schema/errors.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import { asShard, makeManifest, req, sha256, writeManifest, writeRun } from "../_fixture.ts";

const quiet = { onWarning: () => {} };
const fixture = () => writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables());
const manifestOf = (dir: string): RunManifest => JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));

Deno.test("CSV keeps null apart from the empty string and types every column from the contract", async () => {
  const run = await loadRun(fixture(), quiet);
  assert.equal(run.format, "csv");
  const q1 = run.requests.toRecords().find((r) => r.request_id === "q1")!;
  assert.equal(q1.quality_detail, ""); // written as ""
  assert.equal(q1.output_sha256, null); // written as an empty field
  assert.equal(q1.schema_ok, null);
  const dtypes = Object.fromEntries(run.requests.getColumns().map((s) => [s.name, String(s.dtype)]));
  assert.deepEqual(
    [dtypes.attempts, dtypes.scheduled_ms, dtypes.auth_ok, dtypes.class],
    ["DataType(Int64)", "DataType(Float64)", "DataType(Bool)", "DataType(String)"],
  );
  assert.equal(run.requests.height, 25);
  assert.equal(run.server, null);
});

Deno.test("Parquet and CSV of the same run give identical frames and identical goodput", async () => {
  const csvDir = fixture();
  const csv = await loadRun(csvDir, quiet);
  const pqDir = join(Deno.makeTempDirSync(), "pq");
  Deno.mkdirSync(pqDir);
  const files: Record<string, string> = {};
  for (const t of ["requests", "attempts", "tools"] as const) {
    csv[t].writeParquet(join(pqDir, `${t}.parquet`));
    files[`${t}.parquet`] = sha256(join(pqDir, `${t}.parquet`));
  }
  writeManifest(pqDir, { ...manifestOf(csvDir), files });
  const pq = await loadRun(pqDir, quiet);
  assert.equal(pq.format, "parquet");
  for (const t of ["requests", "attempts", "tools"] as const) assert.ok(pq[t].frameEqual(csv[t], true), t);
  const { disclosure: dp, ...fromPq } = goodput(pq, POLICY);
  const { disclosure: dc, ...fromCsv } = goodput(csv, POLICY);
  assert.deepEqual(fromPq, fromCsv);
  assert.deepEqual(dp.files.read, ["run.json", "requests.parquet", "attempts.parquet", "tools.parquet"]);
  assert.deepEqual(dc.files.read, ["run.json", "requests.csv", "attempts.csv", "tools.csv"]);
});

Deno.test("a tampered log file is refused, or loaded with a loud warning under verify warn", async () => {
  const dir = fixture();
  const file = join(dir, "requests.csv");
  // Flip one outcome: the kind of edit that would inflate a published number.
  Deno.writeTextFileSync(file, Deno.readTextFileSync(file).replace(",rejected,", ",ok,"));
  await assert.rejects(
    () => loadRun(dir, quiet),
    (e) => e instanceof InputError && /requests\.csv.*sha256/.test(e.message),
  );
  const seen: string[] = [];
  const run = await loadRun(dir, { verify: "warn", onWarning: (m) => seen.push(m) });
  assert.equal(run.warnings.length, 1);
  assert.match(run.warnings[0]!, /UNVERIFIED LOG: .*requests\.csv/);
  assert.deepEqual(seen, run.warnings);
});

Deno.test("run.json is validated: unknown schema_version, bad fields, killed runs", async (t) => {
  await t.step("an unknown schema major version is refused", async () => {
    const dir = fixture();
    writeManifest(dir, { ...manifestOf(dir), schema_version: 2 });
    await assert.rejects(() => loadRun(dir, quiet), /run\.json: schema_version 2 is not supported/);
  });
  await t.step("a bad field is named with its file", async () => {
    const dir = fixture();
    writeManifest(dir, { ...manifestOf(dir), epoch_iso: "yesterday" });
    await assert.rejects(() => loadRun(dir, quiet), /run\.json: epoch_iso:/);
  });
  await t.step("a run killed while running loads with a warning", async () => {
    const dir = fixture();
    const m = manifestOf(dir);
    writeManifest(dir, { ...m, result: { ...m.result, status: "running" } });
    const run = await loadRun(dir, quiet);
    assert.match(run.warnings.join("\n"), /result\.status is "running"/);
  });
  await t.step("a log with a missing column is refused naming the file", async () => {
    const dir = fixture();
    const file = join(dir, "tools.csv");
    Deno.writeTextFileSync(file, "run_id,request_id,round,tool,started_ms,ended_ms,ok\n");
    const m = manifestOf(dir);
    writeManifest(dir, { ...m, files: { ...m.files, "tools.csv": sha256(file) } });
    await assert.rejects(() => loadRun(dir, quiet), /tools\.csv: missing columns: error_kind/);
  });
});

Deno.test("rows the contract forbids are refused, and a row cut off by a kill is dropped", async (t) => {
  const rewrite = (dir: string, table: string, edit: (text: string) => string, over: Partial<RunManifest> = {}) => {
    const file = join(dir, `${table}.csv`);
    Deno.writeTextFileSync(file, edit(Deno.readTextFileSync(file)));
    const m = manifestOf(dir);
    writeManifest(dir, { ...m, ...over, files: { ...m.files, [`${table}.csv`]: sha256(file) } });
  };
  await t.step("an unknown outcome names the file and column", async () => {
    const dir = fixture();
    rewrite(dir, "requests", (s) => s.replace(",rejected,", ",refused,"));
    await assert.rejects(() => loadRun(dir, quiet), /requests\.csv: outcome: unknown values "refused"/);
  });
  await t.step("a null in a never-null column names the file and column", async () => {
    const dir = fixture();
    rewrite(dir, "requests", (s) => s.replace(",low,0,default,10000,", ",low,0,default,,"));
    await assert.rejects(() => loadRun(dir, quiet), /requests\.csv: scheduled_ms: 1 null values/);
  });
  await t.step("rows of another run (a run_id other than run.json's) are refused, naming the file", async () => {
    const dir = fixture();
    // Two attempts rows moved to another run: run_id is the first field of a row.
    let n = 0;
    rewrite(dir, "attempts", (s) => s.replace(/\nfixture-run,/g, (m) => n++ < 2 ? "\nother-run," : m));
    await assert.rejects(
      () => loadRun(dir, quiet),
      /attempts\.csv: run_id: 2 rows whose run_id is not run\.json run_id "fixture-run"/,
    );
  });
  await t.step("a truncated last row is refused in a finished run", async () => {
    const dir = fixture();
    rewrite(dir, "requests", (s) => s.slice(0, -40));
    await assert.rejects(() => loadRun(dir, quiet), /requests\.csv: truncated last row/);
  });
  await t.step("a killed run drops its truncated last row with a warning", async () => {
    const dir = fixture();
    const m = manifestOf(dir);
    rewrite(dir, "requests", (s) => s.slice(0, -40), { result: { ...m.result, status: "running" } });
    const run = await loadRun(dir, quiet);
    assert.equal(run.requests.height, 24); // 25 rows written, the last one cut
    assert.match(run.warnings.join("\n"), /truncated last row .*dropped/);
  });
});

Deno.test("values the contract does not allow, times out of their order and a request id in two rows are refused, naming the file and a request", async (t) => {
  const written = (edit: (tables: ReturnType<typeof fixtureTables>) => void) => {
    const tables = fixtureTables();
    edit(tables);
    return writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), tables);
  };
  for (const read of [loadRun, scanRun]) {
    await t.step(`${read.name}: a request completed before its action (a latency below 0)`, async () => {
      const dir = written(({ requests }) => {
        const q1 = requests.find((r) => r.request_id === "q1")!;
        q1.completed_ms = q1.scheduled_ms - 1;
      });
      await assert.rejects(
        () => read(dir, quiet),
        (e) =>
          e instanceof InputError &&
          e.problems.some((p) =>
            /requests\.csv: completed_ms: 1 rows before their scheduled_ms \(e\.g\. request_id "q1"\)/.test(p)
          ),
      );
    });
    await t.step(`${read.name}: an attempt's last token before its first`, async () => {
      const dir = written(({ attempts }) => {
        const a = attempts.find((a) => a.request_id === "q10")!;
        a.last_token_ms = a.first_token_ms! - 5;
      });
      await assert.rejects(
        () => read(dir, quiet),
        /attempts\.csv: last_token_ms: 1 rows before their first_token_ms \(e\.g\. request_id "q10"\)/,
      );
    });
    await t.step(`${read.name}: a tool step that ended before it began`, async () => {
      const dir = written((tables) => {
        const step = { run_id: tables.requests[0]!.run_id, request_id: "q11", round: 0, tool: "lookup", ok: true };
        tables.tools = [{ ...step, started_ms: 20_600, ended_ms: 20_599, error_kind: null }];
      });
      await assert.rejects(
        () => read(dir, quiet),
        /tools\.csv: ended_ms: 1 rows before their started_ms \(e\.g\. request_id "q11"\)/,
      );
    });
  }
  for (const read of [loadRun, scanRun]) {
    await t.step(`${read.name}: a count below 0, a backoff below 0 and a time that is not finite`, async () => {
      const dir = written(({ requests }) => {
        requests.find((r) => r.request_id === "q1")!.output_tokens = -5;
        requests.find((r) => r.request_id === "q10")!.completed_ms = Number.NaN;
      });
      await assert.rejects(() => read(dir, quiet), (e) => {
        const text = (e as InputError).problems.join("\n");
        assert.match(
          text,
          /requests\.csv: output_tokens: 1 rows with a value below 0, which the contract does not allow \(e\.g\. request_id "q1"\)/,
        );
        assert.match(
          text,
          /requests\.csv: completed_ms: 1 rows with a value that is not finite \(NaN or infinite\), which the contract does not allow \(e\.g\. request_id "q10"\)/,
        );
        return true;
      });
      const attemptsOnly = written(({ attempts }) =>
        void (attempts.find((a) => a.request_id === "q11")!.backoff_ms = -8)
      );
      await assert.rejects(() => read(attemptsOnly, quiet), /attempts\.csv: backoff_ms: 1 rows with a value below 0/);
    });
    await t.step(`${read.name}: a send lag, a token gap and a Retry-After below 0`, async () => {
      const lagged = written(({ requests }) => void (requests.find((r) => r.request_id === "q1")!.send_lag_ms = -0.25));
      await assert.rejects(
        () => read(lagged, quiet),
        /requests\.csv: send_lag_ms: 1 rows with a value below 0, which the contract does not allow \(e\.g\. request_id "q1"\)/,
      );
      const gapped = written(({ attempts }) => {
        const a = attempts.find((a) => a.request_id === "q11")!;
        a.itl_p50_ms = -1;
        a.itl_max_ms = -1;
        a.retry_after_ms = -1000;
      });
      await assert.rejects(() => read(gapped, quiet), (e) => {
        const text = (e as InputError).problems.join("\n");
        for (const column of ["itl_p50_ms", "itl_max_ms", "retry_after_ms"]) {
          assert.match(text, new RegExp(`attempts\\.csv: ${column}: 1 rows with a value below 0.*request_id "q11"`));
        }
        return true;
      });
    });
    await t.step(`${read.name}: a request id in two rows of one folder's log (a request counted twice)`, async () => {
      const dir = written(({ requests }) => void requests.push({ ...requests.find((r) => r.request_id === "q1")! }));
      await assert.rejects(
        () => read(dir, quiet),
        /a request in two rows\n.*1 request_id values appear in more than one row of the requests log \(e\.g\. q1\)/,
      );
    });
  }
  await t.step("equal times are in order: the hand-built log itself loads", async () => {
    const dir = written(({ requests }) => {
      const q1 = requests.find((r) => r.request_id === "q1")!;
      q1.first_token_ms = q1.completed_ms = q1.first_sent_ms = q1.scheduled_ms;
    });
    assert.equal((await loadRun(dir, quiet)).requests.height, fixtureTables().requests.length);
  });
});

Deno.test("shard folders are concatenated into one run", async () => {
  const root = Deno.makeTempDirSync();
  const { requests, attempts } = fixtureTables();
  const half = (i: number) => requests.filter((_, k) => k % 2 === i).map((r) => ({ ...r, shard: i }));
  for (const i of [0, 1]) {
    const rs = half(i);
    const ids = new Set(rs.map((r) => r.request_id));
    writeRun(join(root, `shard-${i}-of-2`), asShard(fixtureManifest(), i, 2), {
      requests: rs,
      attempts: attempts.filter((a) => ids.has(a.request_id)),
    });
  }
  const run = await loadRun(root, quiet);
  assert.equal(run.manifests.length, 2);
  assert.equal(run.requests.height, 25);
  const whole = await loadRun(fixture(), quiet);
  assert.deepEqual(goodput(run, POLICY).overall, goodput(whole, POLICY).overall);
});

Deno.test("a shard's attempt of a request another shard holds is refused: goodput joins each shard's own rows", async () => {
  const root = Deno.makeTempDirSync();
  const { requests, attempts } = fixtureTables();
  const half = (i: number) => requests.filter((_, k) => k % 2 === i).map((r) => ({ ...r, shard: i }));
  const moved = half(0)[0]!.request_id;
  for (const i of [0, 1]) {
    const ids = new Set(half(i).map((r) => r.request_id));
    const own = attempts.filter((a) => ids.has(a.request_id) !== (a.request_id === moved));
    writeRun(join(root, `shard-${i}-of-2`), asShard(fixtureManifest(), i, 2), { requests: half(i), attempts: own });
  }
  for (const read of [loadRun, scanRun]) {
    await assert.rejects(
      () => read(root, quiet),
      new RegExp(
        `shard-1-of-2/attempts\\.csv: \\d+ attempts rows name a request_id that no row of .*shard-1-of-2/requests\\.csv holds \\(e\\.g\\. ${moved}\\)`,
      ),
    );
  }
});

Deno.test("CSV columns are typed by the contract, not inferred from the first rows", async () => {
  // 300 requests on whole milliseconds, then one at 72562.5 ms: past polars' 100-row inference window.
  const dir = join(Deno.makeTempDirSync(), "run");
  const requests = Array.from({ length: 301 }, (_, i) =>
    req({
      request_id: `r${i}`,
      class: "a",
      stage: "s",
      scheduled_ms: i === 300 ? 72562.5 : i * 10,
      completed_ms: i === 300 ? 72600.25 : i * 10 + 5,
    }));
  const stages = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 80_000, offered_rps: 1 }];
  writeRun(dir, makeManifest(stages), { requests, attempts: [] });
  const run = await loadRun(dir);
  const sched = run.requests.getColumn("scheduled_ms");
  assert.equal(sched.dtype.toString(), "DataType(Float64)");
  assert.equal(sched.toArray().at(-1), 72562.5);
  assert.equal(run.requests.getColumn("completed_ms").toArray().at(-1), 72600.25);
});

Deno.test("an attempt in two rows is refused; rows without their request are refused, or a warning in a killed run", async (t) => {
  const written = (edit: (tables: ReturnType<typeof fixtureTables>) => void, killed = false) => {
    const tables = fixtureTables();
    edit(tables);
    const m = fixtureManifest();
    return writeRun(
      join(Deno.makeTempDirSync(), "run"),
      killed ? { ...m, result: { ...m.result, status: "running" } } : m,
      tables,
    );
  };
  const stray = (tables: ReturnType<typeof fixtureTables>) => {
    const a = tables.attempts.find((a) => a.request_id === "q15" && a.attempt === 1)!;
    tables.attempts.push({ ...a, request_id: "zz9" });
    (tables.tools ??= []).push({
      run_id: a.run_id,
      request_id: "zz8",
      round: 0,
      tool: "retrieval",
      started_ms: 30_000,
      ended_ms: 30_050,
      ok: true,
      error_kind: null,
    });
  };
  for (const read of [loadRun, scanRun]) {
    await t.step(`${read.name}: an attempt's row written twice`, async () => {
      const dir = written(({ attempts }) => void attempts.push({ ...attempts.find((a) => a.request_id === "q15")! }));
      await assert.rejects(() => read(dir, quiet), (e) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, /an attempt in two rows/);
        assert.match(
          e.problems[0]!,
          /1 attempts \(request_id, round, attempt\) appear in more than one row of its attempts log \(e\.g\. \["q15",0,0\]\)/,
        );
        return true;
      });
    });
    await t.step(`${read.name}: an attempt and a tool step of a request the log does not hold`, async () => {
      await assert.rejects(() => read(written(stray), quiet), (e) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, /rows without their request/);
        const text = e.problems.join("\n");
        assert.match(
          text,
          /run\/attempts\.csv: 1 attempts rows name a request_id that no row of .*run\/requests\.csv holds \(e\.g\. zz9\)/,
        );
        assert.match(
          text,
          /run\/tools\.csv: 1 tools rows name a request_id that no row of .*run\/requests\.csv holds \(e\.g\. zz8\)/,
        );
        return true;
      });
    });
    await t.step(`${read.name}: the same in a killed run is a warning, and the run is read without them`, async () => {
      const run = await read(written(stray, true), quiet);
      const text = run.warnings.join("\n");
      assert.match(
        text,
        /attempts\.csv: 1 attempts rows name a request_id .*\(e\.g\. zz9\): read without them, so no figure counts them/,
      );
      assert.match(
        text,
        /tools\.csv: 1 tools rows name a request_id .*\(e\.g\. zz8\): .*tool steps logged before its row/,
      );
      const ids = async (lf: { select: (c: string) => unknown }) => {
        const f = lf.select("request_id") as pl.DataFrame | pl.LazyDataFrame;
        const df = "collect" in f ? await f.collect() : f;
        return df.getColumn("request_id").toArray() as string[];
      };
      const attempts = await ids(run.attempts), tools = await ids(run.tools);
      assert.equal(attempts.length, fixtureTables().attempts.length);
      assert.ok(!attempts.includes("zz9") && !tools.includes("zz8"));
      if ("shards" in run) {
        assert.ok(!(await ids(run.shards[0]!.attempts)).includes("zz9"));
      }
    });
  }
});
