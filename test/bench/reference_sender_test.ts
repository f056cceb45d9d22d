/**
 * The compiled reference sender (bench/reference_sender/), the runner and the Deno floor (bench/floor_sender.ts) send
 * one tiny schedule (1 s warm-up + 1 s steady at 50 req/s) to a loopback responder that answers every request with the
 * static responder's 64-event SSE bytes (bench/static_sse_server.ts) and keeps what it was sent: all three must send
 * every scheduled request, the same request (path, headers, body), and report comparable rows and a summary of the
 * shape bench/reference_bench.ts reads.
 * Needs Go: skipped with a warning when there is none, a failure in CI (.ci/run puts Go on PATH).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import {
  buildReferenceSender,
  findGo,
  floorSenderCommand,
  GO_FALLBACK,
  runnerRequest,
  runReferenceSender,
  saveRunnerSchedule,
} from "../../bench/_reference_sender.ts";
import { lagStats, nearestRank, runRunnerStep, sameArrivals } from "../../bench/_runner_step.ts";
import { staticSseResponse } from "../../bench/static_sse_server.ts";
import { tinyCase, warmupSteadyPlan, writeWorkload } from "../../testing/tiny_workload.ts";

const NAME =
  "the reference sender, the runner and the Deno floor send the same schedule and request, and report comparable rows";
const go = findGo();
if (go === null && Deno.env.get("CI") === "true") {
  Deno.test(NAME, () => {
    throw new Error(`CI: no Go on PATH nor at ${GO_FALLBACK}; .ci/run puts it there or installs golang-go`);
  });
} else {
  if (go === null) {
    console.warn(`\n!!! SKIPPED: ${NAME}: no Go on PATH nor at ${GO_FALLBACK}; in CI this is a failure !!!\n`);
  }
  Deno.test({ name: NAME, ignore: go === null, fn: () => sameScheduleSameRequest(go!) });
}

/** A request as the responder read it. */
interface Seen {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: string;
}

/** Answers every request with the static responder's bytes on keep-alive connections, keeping each request. */
function capturingResponder(): { port: number; seen: Seen[]; close(): Promise<void> } {
  const answer = staticSseResponse(64).bytes;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: Seen[] = [];
  const conns = new Set<Deno.Conn>();
  const latin1 = new TextDecoder("latin1");
  const serve = async (conn: Deno.Conn) => {
    let buf = new Uint8Array(0);
    const chunk = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(chunk).catch(() => null);
      if (n === null) return;
      const next = new Uint8Array(buf.length + n);
      next.set(buf), next.set(chunk.subarray(0, n), buf.length), buf = next;
      for (;;) {
        const text = latin1.decode(buf);
        const end = text.indexOf("\r\n\r\n");
        if (end === -1) break;
        const [line, ...fields] = text.slice(0, end).split("\r\n");
        const headers = Object.fromEntries(fields.map((f) => {
          const i = f.indexOf(":");
          return [f.slice(0, i).trim().toLowerCase(), f.slice(i + 1).trim()];
        }));
        const length = Number(headers["content-length"] ?? 0);
        if (buf.length < end + 4 + length) break;
        const [method, target] = line!.split(" ");
        seen.push({ method: method!, target: target!, headers, body: text.slice(end + 4, end + 4 + length) });
        buf = buf.slice(end + 4 + length);
        for (let at = 0; at < answer.length;) at += await conn.write(answer.subarray(at));
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      serve(conn).finally(() => (conns.delete(conn), conn.close()));
    }
  })();
  return {
    port: listener.addr.port,
    seen,
    async close() {
      listener.close();
      for (const c of conns) c.close();
      await accepting.catch(() => undefined); // the closed listener ends the loop
    },
  };
}

interface ReferenceRow {
  request_id: string;
  stage: string;
  scheduled_ms: number;
  first_sent_ms: number;
  send_lag_ms: number;
  completed_ms: number;
  outcome: string;
  http_status: number;
  events: number;
}

async function sameScheduleSameRequest(go: string): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reference-sender-test-" });
  const responder = capturingResponder();
  try {
    const bin = await buildReferenceSender(go, dir);
    const workload = writeWorkload(dir, [tinyCase()]);
    const plan = warmupSteadyPlan(dir, "tiny", 50, 1);
    const schedule = await saveRunnerSchedule(plan, workload, join(dir, "schedule"));
    const target = `http://127.0.0.1:${responder.port}`;

    // The CPU of the steady stage's middle (1.1–1.9 s after ms 0), beside the whole process's.
    const cpuWindowMs = [1100, 1900] as const;
    const runner = await runRunnerStep({ workload, plan, target, out: dir, runId: "runner", cpuWindowMs });
    const byRunner = responder.seen.splice(0);
    // The reference and the floor send the runner's request on its schedule, each writing its rows beside.
    const send = (cmd: string | string[], rows: string) =>
      runReferenceSender(cmd, {
        schedule,
        url: `${target}/v1/chat/completions`,
        request: runnerRequest(tinyCase()),
        rows,
        runId: "runner",
        cpuWindowMs,
      });
    const rowsFile = join(dir, "reference.csv");
    const ref = await send(bin, rowsFile);
    const byReference = responder.seen.splice(0);
    const floorRowsFile = join(dir, "floor.csv");
    const floor = await send(floorSenderCommand(), floorRowsFile);
    const byFloor = responder.seen.splice(0);

    // The same schedule: the runner saved exactly the file the reference read (50 warm-up + 50 steady arrivals).
    assert.equal(await Deno.readTextFile(join(runner.dir, "schedule.csv")), await Deno.readTextFile(schedule));
    const planned = (parse(await Deno.readTextFile(schedule), { columns: true }) as Record<string, string>[])
      .map((r) => ({ request_id: r.request_id!, scheduled_ms: Number(r.scheduled_ms), stage: r.stage! }));
    assert.equal(planned.length, 100);

    // Both sent every scheduled request, and the same bytes (the idempotency key names the run id, the same here).
    // Besides, the runner sent its pre-flight probe (a POST asking "Reply with OK.", runner/preflight.ts) and its
    // /v1/models GET, the reference its 8 keep-alive warm-up requests, all before ms 0.
    const probe = (r: Seen) => r.method === "POST" && r.body.includes("Reply with OK.");
    const warm = (r: Seen) => r.headers["idempotency-key"]?.startsWith("runner:warm-up-") ?? false;
    assert.deepEqual(byRunner.filter((r) => r.method !== "POST" || probe(r)).map((r) => r.method), ["GET", "POST"]);
    assert.equal(byReference.filter(warm).length, 8);
    const shape = (r: Seen) =>
      JSON.stringify({
        ...r,
        headers: Object.fromEntries(Object.entries(r.headers).sort(([a], [b]) => a < b ? -1 : 1)),
      });
    const runnerSent = byRunner.filter((r) => r.method === "POST" && !probe(r)).map(shape).sort();
    const referenceSent = byReference.filter((r) => !warm(r)).map(shape).sort();
    assert.equal(runnerSent.length, 100);
    assert.equal(new Set(runnerSent).size, 100, "one idempotency key per request");
    assert.deepEqual(referenceSent, runnerSent);
    assert.equal(byFloor.filter(warm).length, 8);
    assert.deepEqual(byFloor.filter((r) => !warm(r)).map(shape).sort(), runnerSent);

    // The runner's rows, as reference_bench reads them.
    assert.deepEqual([runner.requests, runner.ok, runner.not_sent, runner.steady.n], [100, 100, 0, 50]);
    assert.ok(runner.steady.p50_ms >= 0 && runner.steady.p50_ms <= runner.steady.p99_ms);
    assert.ok(runner.steady.p99_ms <= runner.steady.max_ms && runner.cpu_ms > 0);

    // The reference's rows: one per scheduled request, in order, first byte after its time, answered to the end.
    /** A sender's rows file, checked to hold one row per scheduled request, in schedule order. */
    const rowsOf = async (file: string) => {
      const rows = parse(await Deno.readTextFile(file), { columns: true, cast: true }) as ReferenceRow[];
      assert.deepEqual(
        rows.map((r) => ({ request_id: r.request_id, scheduled_ms: r.scheduled_ms, stage: r.stage })),
        planned,
      );
      return rows;
    };
    const rows = await rowsOf(rowsFile);
    for (const r of rows) {
      assert.equal(r.outcome, "ok", r.request_id);
      assert.equal(r.http_status, 200);
      assert.equal(r.events, 64);
      assert.ok(r.send_lag_ms >= 0, `${r.request_id}: lag ${r.send_lag_ms}`);
      assert.ok(Math.abs(r.send_lag_ms - (r.first_sent_ms - r.scheduled_ms)) < 1e-6, r.request_id);
      assert.ok(r.completed_ms >= r.first_sent_ms, r.request_id);
    }

    // Its summary: counts, and the steady stage's nearest-rank lags recomputed from its rows here.
    const steady = rows.filter((r) => r.stage === "steady").map((r) => r.send_lag_ms).sort((a, b) => a - b);
    const k = (p: number) => steady[Math.ceil(p * steady.length) - 1]; // rank ⌈p·n⌉: 25th and 50th of 50
    assert.deepEqual(
      [ref.n, ref.ok, ref.not_sent, ref.failed, ref.stage, ref.stage_n],
      [100, 100, 0, 0, "steady", 50],
    );
    assert.equal(ref.send_lag_p50_ms, k(0.5));
    assert.equal(ref.send_lag_p99_ms, k(0.99));
    assert.equal(ref.send_lag_max_ms, Math.max(...steady));
    assert.deepEqual(lagStats(steady), {
      n: 50,
      p50_ms: nearestRank(steady, 0.5),
      p99_ms: ref.send_lag_p99_ms,
      max_ms: ref.send_lag_max_ms,
    });
    const lastDone = Math.max(...rows.map((r) => r.completed_ms));
    assert.ok(Math.abs(ref.completed_rps - 100 / (lastDone / 1000)) < 1e-6 * ref.completed_rps);
    assert.ok(ref.cpu_user_ms + ref.cpu_sys_ms > 0 && ref.peak_rss_bytes !== null && ref.gomaxprocs! >= 1);

    // The floor's rows and summary, the same way: every request answered to its end ([DONE] seen), lags ≥ 0.
    const floorRows = await rowsOf(floorRowsFile);
    for (const r of floorRows) {
      assert.equal(r.outcome, "ok", r.request_id);
      assert.ok(r.send_lag_ms >= 0 && r.completed_ms >= r.scheduled_ms + r.send_lag_ms, r.request_id);
    }
    const floorSteady = floorRows.filter((r) => r.stage === "steady").map((r) => r.send_lag_ms);
    assert.deepEqual(
      [floor.n, floor.ok, floor.not_sent, floor.failed, floor.stage_n],
      [100, 100, 0, 0, 50],
    );
    assert.deepEqual(
      { n: 50, p50_ms: floor.send_lag_p50_ms, p99_ms: floor.send_lag_p99_ms, max_ms: floor.send_lag_max_ms },
      lagStats(floorSteady),
    );
    assert.ok(floor.cpu_user_ms + floor.cpu_sys_ms > 0 && floor.runtime!.startsWith("deno "));

    // Each sender's CPU over the window: measured, and no more than its whole life's.
    for (
      const [name, w, all] of [
        ["runner", runner.window_cpu_ms, runner.cpu_ms],
        ["reference", ref.window_cpu_ms, ref.cpu_user_ms + ref.cpu_sys_ms],
        ["floor", floor.window_cpu_ms, floor.cpu_user_ms + floor.cpu_sys_ms],
      ] as const
    ) {
      assert.ok(typeof w === "number" && w >= 0 && w <= all, `${name}: window ${w} of ${all} ms`);
    }
  } finally {
    await responder.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("runRunnerStep with workers: the shards' rows together, their schedules the whole one, the parent's CPU in", async () => {
  const dir = await Deno.makeTempDir({ prefix: "runner-step-workers-test-" });
  const responder = capturingResponder();
  try {
    const workload = writeWorkload(dir, [tinyCase()]);
    const plan = warmupSteadyPlan(dir, "tiny", 50, 1);
    const schedule = await saveRunnerSchedule(plan, workload, join(dir, "schedule"));
    const target = `http://127.0.0.1:${responder.port}`;
    const r = await runRunnerStep({
      workload,
      plan,
      target,
      out: dir,
      runId: "w",
      cpuWindowMs: [1100, 1900],
      workers: 2,
    });
    assert.deepEqual([r.requests, r.ok, r.not_sent, r.steady.n], [100, 100, 0, 50]);
    assert.deepEqual(r.schedules, [
      join(dir, "w", "shard-0-of-2", "schedule.csv"),
      join(dir, "w", "shard-1-of-2", "schedule.csv"),
    ]);
    assert.equal(sameArrivals(r.schedules, schedule), true);
    assert.equal(sameArrivals(r.schedules.slice(0, 1), schedule), false, "one shard holds half the arrivals");
    // The process tree's CPU: both workers' own (their run.json) and the parent's on top.
    const workers = r.schedules.map((f) =>
      JSON.parse(Deno.readTextFileSync(join(f, "..", "run.json"))).result.runner_cpu_ms as number
    );
    assert.ok(r.cpu_ms > workers[0]! + workers[1]!, `${r.cpu_ms} ms against the workers' ${workers.join(" + ")}`);
    assert.ok(typeof r.window_cpu_ms === "number" && r.window_cpu_ms >= 0 && r.window_cpu_ms <= r.cpu_ms);
  } finally {
    await responder.close();
    await Deno.remove(dir, { recursive: true });
  }
});
