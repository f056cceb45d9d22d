/**
 * `npx deno task run --workers N` end to end: the parent CLI as a subprocess,
 * its workers as its own subprocesses, against a target in this process.
 * Bounded: each run is at most 40 rps for 10 s, on loopback.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { loadSimProfile } from "../../../schema/sim_profile.ts";
import { loadWorkload } from "../../../schema/workload_file.ts";
import { startSim } from "../../../sim/mod.ts";
import { runCli } from "../../support/run_cli.ts";
import { type FaultRequest, startFaultServer } from "../../support/fault_server.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../../testing/tiny_workload.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const RUN = join(ROOT, "runner/cli/run.ts");
const DESIGN_V1 = join(ROOT, "data/workloads/design-v1");

/** The parent of `--workers 2`, started in the background (stdin closed, output collected). */
function startParent(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", RUN, ...args, "--workers", "2", "--format", "csv"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output().then((o) => ({
    code: o.code,
    stdout: new TextDecoder().decode(o.stdout),
    stderr: new TextDecoder().decode(o.stderr),
  }));
  return { child, output };
}

/** A shard's run.json, or null before it is written (at ms 0). */
function readManifest(dir: string): RunManifest | null {
  try {
    return JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
  } catch (e) {
    // Not written yet, or caught mid-write.
    if (e instanceof Deno.errors.NotFound || e instanceof SyntaxError) return null;
    throw e;
  }
}

/** Waits (at most `seconds`) until `ok()` holds. */
async function until(ok: () => boolean, seconds: number, what: string): Promise<void> {
  for (let i = 0; i < seconds * 20; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`waited ${seconds} s for ${what}`);
}

const shardDirs = (runDir: string) => [0, 1].map((i) => join(runDir, `shard-${i}-of-2`));

Deno.test("--workers 2 writes one run of two shards with one start time, which analyze, knee and report read as one run", async () => {
  const dir = Deno.makeTempDirSync();
  const { workload } = await loadWorkload(DESIGN_V1);
  const profile = await loadSimProfile(join(ROOT, "data/sim/fast.json"));
  const sim = await startSim({ port: 0, profile, workload, seed: 1, quiet: true });
  try {
    const out = join(dir, "out");
    const parent = startParent([
      "--workload",
      DESIGN_V1,
      "--plan",
      constantPlan(dir, 20, 2),
      "--target",
      sim.url,
      "--out",
      out,
      "--run-id",
      "two",
    ]);
    const r = await parent.output;
    assert.equal(r.code, 0, r.stderr);
    const runDir = join(out, "two");
    assert.deepEqual([...Deno.readDirSync(runDir)].map((e) => e.name).sort(), ["shard-0-of-2", "shard-1-of-2"]);
    const [m0, m1] = shardDirs(runDir).map((d) => readManifest(d)!);
    // One start time, given to both once both were ready; each started on it (its ms 0 within 1 s of it).
    assert.ok(m0!.plan.start_iso !== null && m0!.plan.start_iso === m1!.plan.start_iso, JSON.stringify(m0!.plan));
    for (const m of [m0!, m1!]) {
      const skew = Date.parse(m.epoch_iso) - Date.parse(m.plan.start_iso!);
      assert.ok(skew >= 0 && skew < 1000, `start skew ${skew} ms`);
      assert.equal(m.result.status, "complete");
    }
    // 20 rps × 2 s = 40 arrivals; shard i of 2 holds those with index ≡ i (mod 2).
    for (const [i, d] of shardDirs(runDir).entries()) {
      const ids = (await readLogCsv(join(d, "requests.csv"), "requests")).map((row) => Number(row.request_id.slice(1)));
      assert.deepEqual(ids.sort((a, b) => a - b), Array.from({ length: 20 }, (_, k) => 2 * k + i));
    }
    // One line for both workers, the last one always printed; a summary row per worker.
    assert.match(r.stderr, /workers: all 2 ended \| t=\S+ offered 40\/40 /);
    assert.match(r.stdout, /^0 +shard-0-of-2 +0 +complete +20 /m);
    assert.match(r.stdout, /^1 +shard-1-of-2 +0 +complete +20 /m);
    assert.ok(r.stdout.includes(`run written to ${runDir}`));

    const run = await loadRun(runDir, { onWarning: () => {} });
    assert.deepEqual(run.shard_set, { count: 2, present: [0, 1], missing: [] });
    assert.equal(run.requests.height, 40);
    // The server's timeline is the server's, fetched once (by shard 0), not once per shard.
    assert.ok(Deno.statSync(join(runDir, "shard-0-of-2", "server.csv")).isFile);
    assert.throws(() => Deno.statSync(join(runDir, "shard-1-of-2", "server.csv")), Deno.errors.NotFound);

    const analysis = ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"];
    const analyze = await runCli(join(ROOT, "analysis/cli/analyze.ts"), [runDir], analysis);
    assert.equal(analyze.code, 0, analyze.stderr);
    assert.match(analyze.stdout, /run two \(.*; csv, 2 shards;/);
    assert.match(analyze.stdout, /^all +40 +40 /m);
    const knee = await runCli(join(ROOT, "analysis/cli/knee.ts"), [runDir], analysis);
    assert.equal(knee.code, 0, knee.stderr);
    assert.match(knee.stdout, /offered 40, completed 40/);
    const html = join(dir, "report.html");
    const report = await runCli(join(ROOT, "analysis/cli/report.ts"), [runDir, "--out", html], [
      ...analysis,
      "--allow-write",
      "--allow-run",
    ]);
    assert.equal(report.code, 0, report.stderr);
    assert.ok(Deno.statSync(html).size > 0);
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** Starts `--workers 2` at 40 rps for 10 s against slow answers; resolves once both workers are past ms 0. */
async function startSlowRun(dir: string, url: string) {
  const out = join(dir, "out");
  const workload = writeWorkload(dir, [tinyCase()]);
  const parent = startParent(
    ["--workload", workload, "--plan", constantPlan(dir, 40, 10), "--target", `${url}/slow`]
      .concat(["--out", out, "--run-id", "slow", "--no-progress"]),
  );
  const dirs = shardDirs(join(out, "slow"));
  // run.json is written at ms 0; a second more and both are sending.
  await until(() => dirs.every((d) => readManifest(d) !== null), 60, "both workers to start");
  await new Promise((r) => setTimeout(r, 1000));
  return { parent, dirs };
}

Deno.test("a SIGINT to the parent stops every worker, and each finalises its log as interrupted", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: 25 });
  try {
    const { parent, dirs } = await startSlowRun(dir, srv.url);
    parent.child.kill("SIGINT");
    const r = await parent.output;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /SIGINT: stopping every worker/);
    for (const d of dirs) {
      const m = readManifest(d)!;
      assert.equal(m.result.status, "interrupted", d);
      assert.equal(m.result.stopped_by_signal, "SIGINT", d);
      // 40 rps × 10 s = 400 arrivals, 200 per shard: every one has a row, the unsent ones not_sent.
      assert.equal(m.result.offered, 200);
      assert.ok(m.result.not_sent > 0, `shard not_sent ${m.result.not_sent}`);
    }
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("workers whose parent is killed stop by themselves and finalise their logs", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: 25 });
  try {
    const { parent, dirs } = await startSlowRun(dir, srv.url);
    parent.child.kill("SIGKILL");
    await parent.output;
    // Their stdin closes with the parent: each stops as on a signal (no signal is recorded) and finalises.
    await until(() => dirs.every((d) => readManifest(d)?.result.status !== "running"), 60, "both logs to end");
    for (const d of dirs) {
      const m = readManifest(d)!;
      assert.equal(m.result.status, "interrupted", d);
      assert.equal(m.result.stopped_by_signal, null, d);
      assert.equal(m.result.offered, 200);
    }
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a worker failing its pre-flight stops the others before the start: nothing is sent, the parent names it", async () => {
  const dir = Deno.makeTempDirSync();
  let probes = 0;
  // The second pre-flight probe (a chat POST without an idempotency key; shard 0's GET /sim/timeline is not one)
  // fails: one worker passes, the other does not.
  const probe = (req: FaultRequest) => req.method === "POST" && !req.headers.has("idempotency-key");
  const srv = await startFaultServer({ pick: (req) => (probe(req) && ++probes === 2 ? "500" : undefined) });
  try {
    const out = join(dir, "out");
    const workload = writeWorkload(dir, [tinyCase()]);
    const r = await startParent([
      "--workload",
      workload,
      "--plan",
      constantPlan(dir, 10, 1),
      "--target",
      srv.url,
      "--out",
      out,
      "--run-id",
      "probe",
    ]).output;
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /1 of 2 workers failed: worker [01] \(shard-[01]-of-2\) exited 4: .*pre-flight failed/);
    assert.match(r.stderr, /1 stopped before the start, their folders removed/);
    assert.equal(srv.requests.filter((q) => q.headers.has("idempotency-key")).length, 0, "no request was sent");
    assert.throws(() => Deno.statSync(join(out, "probe")), Deno.errors.NotFound);
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("workers that fail after the start make the parent exit non-zero, naming each", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({});
  try {
    const workload = writeWorkload(dir, [tinyCase()]);
    const r = await startParent([
      "--workload",
      workload,
      "--plan",
      constantPlan(dir, 10, 0.4),
      "--target",
      `${srv.url}/500`,
      "--out",
      join(dir, "out"),
      "--no-preflight",
      "--no-progress",
    ]).output;
    // 10 rps × 0.4 s = 4 arrivals, 2 per worker, every one answered 500: each worker exits 3, and so does the parent.
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      /2 of 2 workers failed: worker 0 \(shard-0-of-2\) exited 3: .*no request succeeded: 0 of 2 .*; worker 1 \(shard-1-of-2\) exited 3: /,
    );
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
