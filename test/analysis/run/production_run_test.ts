/**
 * A production recording read like any other run: its parts in part order, CSV or Parquet per part, a missing table
 * empty, the phases table read; its checks (the run's id on every row, no request in two parts, every rotated file
 * by its sha256); its stage windows at their observed rates; a recording still open cut at its last flush.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { productionConditions } from "../../../analysis/run/production_run.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { InputError } from "../../../schema/errors.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { answered, req } from "../_fixture.ts";
import { type PartRows, phase, productionManifest, toolRow, writeProduction } from "../_production_fixture.ts";
import { fixtureManifest, fixtureTables } from "../hand_fixture.ts";
import { writeRun } from "../_fixture.ts";
import { writeParquetFromRows } from "../../../runner/sinks/parquet_writer.ts";

const QUIET = { onWarning: () => {} };
const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: {},
  default: { e2e_ms: 1000, gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"] },
};

/**
 * Window w0000 (0–10 s): a1..a4 in part 0 (Parquet); window w0001 (10–20 s): b1, b2 in part 1 (CSV), b2 at 900 ms
 * (accepted), b1 late at 1500 ms. a1 has page phases and a retrieval step; part 1 holds no phases file.
 */
function parts(): PartRows[] {
  const a = [1000, 3000, 5000, 7000].map((t, i) =>
    answered({ request_id: `a${i + 1}`, class: i % 2 ? "summarize" : "chat", stage: "w0000", scheduled_ms: t }, 400)
  );
  const b = [
    answered({ request_id: "b1", class: "chat", stage: "w0001", scheduled_ms: 12_000 }, 1500),
    answered({ request_id: "b2", class: "chat", stage: "w0001", scheduled_ms: 14_000 }, 900),
  ];
  return [
    {
      format: "parquet",
      started_ms: 0,
      ended_ms: 10_000,
      requests: a.map((x) => x.request),
      attempts: a.map((x) => x.attempt),
      tools: [toolRow("a1", "retrieval", 1000, 1050)],
      phases: [phase("a1", "page", 1000, 1004), phase("a1", "render", 1390, 1400)],
    },
    {
      format: "csv",
      started_ms: 10_000,
      ended_ms: 20_000,
      requests: b.map((x) => x.request),
      attempts: b.map((x) => x.attempt),
      omit: ["phases"],
    },
  ];
}

const write = (m = productionManifest(), p = parts()) => writeProduction(join(Deno.makeTempDirSync(), "rec"), m, p);

Deno.test("a production recording loads part by part, CSV and Parquet, with its phases", async (t) => {
  const dir = write();
  const run = await loadRun(dir, QUIET);
  await t.step("the parts in part order, each in its own format; a missing table is empty", () => {
    assert.deepEqual(run.requests.getColumn("request_id").toArray(), ["a1", "a2", "a3", "a4", "b1", "b2"]);
    assert.deepEqual(run.parts, [
      { dir: "part-00000", format: "parquet", tables: ["requests", "attempts", "tools", "phases"] },
      { dir: "part-00001", format: "csv", tables: ["requests", "attempts", "tools"] },
    ]);
    assert.equal(run.format, "csv"); // Parquet only when every part is
    assert.equal(run.phases.height, 2);
    assert.deepEqual(run.phases.getColumn("phase").toArray(), ["page", "render"]);
    assert.equal(run.tools.height, 1);
    assert.equal(run.manifests.length, 1);
    assert.equal(run.end.status, "complete");
  });
  await t.step("each stage window's rate is recomputed from the log: actions / window seconds", () => {
    // w0000: 4 actions / 10 s = 0.4 /s; w0001: 2 / 10 s = 0.2 /s (run.json said 0 for both).
    assert.deepEqual(run.manifest.stages.map((s) => [s.name, s.offered_rps]), [["w0000", 0.4], ["w0001", 0.2]]);
  });
  await t.step("scanRun gives the same tables, one shard per part", async () => {
    const scanned = await scanRun(dir, QUIET);
    assert.equal(scanned.shards.length, 2);
    assert.equal((await scanned.phases.collect()).height, 2);
    assert.deepEqual(goodput(scanned, POLICY).overall, goodput(run, POLICY).overall);
  });
  await t.step("goodput over the observation window: 5 of 6 accepted in 20 s", () => {
    const g = goodput(run, POLICY);
    // a1..a4 (400 ms) and b2 (900 ms) within 1000 ms; b1 (1500 ms) late: 5 accepted / 20 s = 0.25 /s.
    assert.equal(g.overall.accepted, 5);
    assert.equal(g.overall.measurement_seconds, 20);
    assert.equal(g.overall.accepted_goodput, 0.25);
    assert.deepEqual(g.disclosure.files.read, [
      "run.json",
      "part-00000/requests.parquet",
      "part-00000/attempts.parquet",
      "part-00000/tools.parquet",
      "part-00000/phases.parquet",
      "part-00001/requests.csv",
      "part-00001/attempts.csv",
      "part-00001/tools.csv",
    ]);
  });
});

Deno.test("a runner's run has an empty phases table with the contract's columns", async () => {
  const run = await loadRun(writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables()), QUIET);
  assert.equal(run.phases.height, 0);
  assert.deepEqual(run.phases.columns, [
    "run_id",
    "request_id",
    "phase",
    "side",
    "started_ms",
    "ended_ms",
    "clock_offset_ms",
    "clock_error_ms",
    "started_epoch_ms",
  ]);
  assert.equal(run.parts, undefined);
});

Deno.test("a production recording is checked like any run, part by part", async (t) => {
  await t.step("a row of another run in a part is refused, naming the part's file", async () => {
    const p = parts();
    p[1]!.requests![0] = { ...p[1]!.requests![0]!, run_id: "other" };
    const dir = write(productionManifest(), p);
    // The fixture writes the run's id on every row; put the other run's back in the CSV by hand.
    const file = join(dir, "part-00001", "requests.csv");
    const text = Deno.readTextFileSync(file);
    Deno.writeTextFileSync(file, text.replace("\nprod-run,b1,", "\nother,b1,"));
    const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
    m.parts[1].files = {}; // the copy is not the rotated file: unlisted, under verify warn
    Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(m));
    await assert.rejects(
      () => loadRun(dir, { ...QUIET, verify: "warn" }),
      (e) => e instanceof InputError && e.problems.some((x) => /part-00001\/requests\.csv: run_id: 1 rows/.test(x)),
    );
  });
  await t.step("a request id in two parts is refused", async () => {
    const p = parts();
    p[1]!.requests!.push(req({ request_id: "a1", class: "chat", stage: "w0001", scheduled_ms: 15_000 }));
    await assert.rejects(
      () => loadRun(write(productionManifest(), p), QUIET),
      (e) =>
        e instanceof InputError &&
        /1 request_id values appear in more than one row of the parts' requests logs \(e\.g\. a1\)/.test(
          e.problems[0]!,
        ),
    );
  });
  await t.step(
    "an attempt without its request (a write that failed mid-task) is a warning, and left out; twice is refused",
    async () => {
      const p = parts();
      p[1]!.attempts!.push({ ...p[1]!.attempts![0]!, request_id: "c9" });
      for (const read of [loadRun, scanRun]) {
        const run = await read(write(productionManifest(), p), QUIET);
        assert.ok(
          run.warnings.some((w) =>
            /part-00001\/attempts\.csv: 1 attempts rows name a request_id that no row of its parts' requests logs holds \(e\.g\. c9\): read without them/
              .test(w)
          ),
          run.warnings.join("\n"),
        );
        const attempts = run.attempts.select("request_id");
        const ids = ("collect" in attempts ? await attempts.collect() : attempts).getColumn("request_id").toArray();
        assert.deepEqual(ids.sort(), ["a1", "a2", "a3", "a4", "b1", "b2"]);
      }
      const twice = parts();
      twice[1]!.attempts!.push(twice[0]!.attempts![0]!);
      await assert.rejects(
        () => loadRun(write(productionManifest(), twice), QUIET),
        /an attempt in two rows/,
      );
    },
  );
  await t.step("a rotated part's changed file is refused by its sha256", async () => {
    const dir = write();
    // A valid Parquet file with one row changed (the retrieval step made shorter): only its hash gives it away.
    const file = join(dir, "part-00000", "tools.parquet");
    const identity = { run_id: "prod-run", epoch_iso: "2026-05-01T08:00:00.000Z" };
    writeParquetFromRows(file, "tools", [toolRow("a1", "retrieval", 1000, 1010)], { identity });
    await assert.rejects(() => loadRun(dir, QUIET), /part-00000\/tools\.parquet: sha256 .* parts\[0\]\.files/);
  });
  await t.step("a file that is not Parquet at all is an input error naming it", async () => {
    const dir = write();
    const file = join(dir, "part-00000", "tools.parquet");
    Deno.writeFileSync(file, new Uint8Array([...Deno.readFileSync(file), 0]));
    await assert.rejects(
      () => loadRun(dir, QUIET),
      (e) => e instanceof InputError && /part-00000\/tools\.parquet: cannot read tools log/.test(e.message),
    );
  });
  await t.step("a part folder run.json does not list: refused when closed, a warning while recording", async () => {
    const dir = write();
    Deno.mkdirSync(join(dir, "part-00002"));
    await assert.rejects(() => loadRun(dir, QUIET), /part folders not in run\.json parts: part-00002/);
    const open = write(
      productionManifest({ observation: { ...productionManifest().observation, status: "recording" } }),
    );
    Deno.mkdirSync(join(open, "part-00002"));
    const run = await loadRun(open, QUIET);
    assert.ok(run.warnings.some((w) => /part-00002 \(started after run\.json's last update\): not read/.test(w)));
  });
  await t.step("a closed recording's CSV part whose files are not listed is refused", async () => {
    const p = parts();
    p[1]!.ended_ms = null; // written as the part being written: no files listed
    await assert.rejects(
      () => loadRun(write(productionManifest(), p), QUIET),
      /not listed in run\.json parts\[1\]\.files/,
    );
  });
});

Deno.test("a recording still open ends at its last flush: windows clipped, later tasks out, the last window cut", async () => {
  const o = productionManifest().observation;
  const p = parts();
  p[1]!.ended_ms = null; // the part being written
  const dir = write(
    productionManifest({ observation: { ...o, status: "recording", ended_iso: null, ended_ms: 13_000 } }),
    p,
  );
  const seen: string[] = [];
  const run = await loadRun(dir, { onWarning: (m) => seen.push(m) });
  assert.equal(run.end.status, "recording");
  assert.equal(run.end.cut_ms, 13_000);
  // b2 (14 s) is after the last flush (13 s): out of numerator and denominator.
  assert.equal(run.end.after_cut, 1);
  // w0001 clipped to 10–13 s: 1 action (b1) / 3 s; whole, it would run to 20 s.
  assert.deepEqual(run.manifest.stages.map((s) => [s.end_ms, s.offered_rps]), [[10_000, 0.4], [13_000, 1 / 3]]);
  assert.equal(run.end.planned_stages.at(-1)!.end_ms, 20_000);
  assert.match(run.end.headline!, /^RECORDING STILL OPEN .* ends at its last flush, 13 s after the recorder started/);
  assert.match(run.end.headline!, /1 tasks scheduled after it are in neither numerator nor denominator/);
  assert.ok(seen.some((w) => /part-00001: .* not listed .*\(the part is being written\)/.test(w)));
  const g = goodput(run, POLICY);
  // a1..a4 and b1 offered (b2 after the cut) over 13 s.
  assert.equal(g.overall.offered, 5);
  assert.equal(g.overall.measurement_seconds, 13);
  assert.ok(g.disclosure.inclusion_rules.some((r) => r.startsWith("RECORDING STILL OPEN: a recording still open")));
});

Deno.test("productionConditions() names the thread that wrote the log when run.json states it", () => {
  const base = productionManifest();
  const at = (writer?: "thread" | "app") =>
    productionConditions({ ...base, recorder: { ...base.recorder, ...(writer ? { writer } : {}) } });
  const head = "frozen conditions: app chat-app 1.4.2; model=sim-llm, region=local; route app; " +
    "recorder goodput-recorder 0.1.0 on deno 2.9.6";
  assert.equal(at("thread"), `${head}, writing on its writer thread`);
  assert.equal(at("app"), `${head}, writing on the app's thread`);
  // A recording made before the writer thread existed does not say.
  assert.equal(at(), head);
});
