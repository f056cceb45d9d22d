/**
 * N shards on N hosts are one run: three runner processes, each in its own
 * network namespace (a host of its own, with its own link and address), run
 * shards 0..2 of 3 of one schedule from one start time against the simulator
 * in a fourth namespace; the same schedule is then run once, unsharded, from
 * one of them. The test checks that the two are the same run: the same
 * offered set, the same goodput within the noise it states below.
 *
 * Needs root and `ip netns` (in CI: a failure when missing; elsewhere: skipped
 * with a loud message). Every address is inside namespaces the test creates
 * (test/support/netns.ts), removed in `finally` whatever happens. Bounded:
 * 20 req/s for 10 s, twice.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../analysis/goodput/goodput.ts";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../analysis/run/loaded_run.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { constantPlan } from "../../testing/tiny_workload.ts";
import { lines } from "../../runner/workers/_lines.ts";
import { type Hosts, makeHosts, netnsProblem } from "../support/netns.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DESIGN_V1 = join(ROOT, "data/workloads/design-v1");
const SHARDS = 3;
/** Time from launching the shard processes to their shared start: Deno's start-up on a loaded 2-core machine. */
const LEAD_MS = 15_000;

const problem = netnsProblem();
if (problem && Deno.env.get("CI") === "true") {
  Deno.test("N shards in separate network namespaces equal one run", () => {
    throw new Error(`CI: cannot make network namespaces: ${problem}; this test must run in CI`);
  });
} else {
  if (problem) console.warn(`\n!!! SKIPPED: N shards in network namespaces: ${problem}; in CI this is a failure !!!\n`);
  Deno.test({
    name: "N shards in separate network namespaces equal one run: the same offered set, the same goodput",
    ignore: problem !== null,
    fn: shardsEqualOneRun,
  });
}

/** Starts `deno ARGS` in namespace `ns`; its output collected (stderr shown, when asked). */
function inHost(hosts: Hosts, ns: string, args: string[], stderr: "piped" | "inherit" = "piped") {
  return new Deno.Command("ip", { args: hosts.exec(ns, Deno.execPath(), args), stdin: "null", stdout: "piped", stderr })
    .spawn();
}

async function finished(child: Deno.ChildProcess, what: string): Promise<void> {
  const o = await child.output();
  const dec = new TextDecoder();
  assert.equal(o.code, 0, `${what} exited ${o.code}: ${dec.decode(o.stderr)}`);
}

/** The runner in a namespace: `npx deno task run` with the flags given, against the simulator as `i` reaches it. */
function runner(hosts: Hosts, i: number, port: number, plan: string, extra: string[]) {
  return inHost(hosts, hosts.clients[i]!, [
    "run",
    "-A",
    join(ROOT, "runner/cli/run.ts"),
    ...["--workload", DESIGN_V1, "--plan", plan, "--target", `http://${hosts.targetAddr(i)}:${port}`],
    ...["--no-progress", "--format", "parquet", ...extra],
  ]);
}

/** `POST /sim/reset` from client 0: the simulator's PRNG restarts from its seed, so both runs draw the same numbers. */
async function resetSim(hosts: Hosts, port: number): Promise<void> {
  const url = `http://${hosts.targetAddr(0)}:${port}/sim/reset`;
  const code = `const r = await fetch(${JSON.stringify(url)}, { method: "POST" }); await r.body?.cancel(); ` +
    "if (!r.ok) throw new Error(`HTTP ${r.status}`);";
  await finished(inHost(hosts, hosts.clients[0]!, ["eval", code]), "the reset");
}

/** The offered set of a run: (request_id, scheduled_ms, case_id) of every request, in request id order. */
function offeredSet(run: LoadedRun): string[] {
  return run.requests.select("request_id", "scheduled_ms", "case_id").sort("request_id").rows().map((r) => r.join(" "));
}

async function shardsEqualOneRun(): Promise<void> {
  const dir = Deno.makeTempDirSync();
  const hosts = await makeHosts(SHARDS);
  try {
    const sim = inHost(hosts, hosts.target, [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-env",
      "--unstable-no-legacy-abort",
      join(ROOT, "sim/cli.ts"),
      ...["--host", "0.0.0.0", "--expose", "--port", "0", "--profile", join(ROOT, "data/sim/fast.json")],
      ...["--workload", DESIGN_V1, "--seed", "1", "--duration-s", "300", "--quiet"],
    ], "inherit");
    let port = 0;
    for await (const line of lines(sim.stdout)) {
      const m = /^http:\/\/0\.0\.0\.0:(\d+)$/.exec(line);
      if (m) {
        port = Number(m[1]);
        break;
      }
    }
    assert.ok(port > 0, "the simulator printed its URL");
    const plan = constantPlan(dir, 20, 10);

    // One run of the schedule, from host 0.
    await resetSim(hosts, port);
    await finished(runner(hosts, 0, port, plan, ["--out", join(dir, "single"), "--run-id", "one"]), "the single run");

    // The same schedule as 3 shards, one per host, from one start time.
    await resetSim(hosts, port);
    const startAt = new Date(Date.now() + LEAD_MS).toISOString();
    const shards = hosts.clients.map((_, i) =>
      runner(hosts, i, port, plan, [
        ...["--out", join(dir, "sharded"), "--run-id", "net", "--shard", `${i}/${SHARDS}`, "--start-at", startAt],
      ])
    );
    await Promise.all(shards.map((c, i) => finished(c, `shard ${i}`)));
    sim.kill("SIGTERM");
    await sim.status;

    const one = await loadRun(join(dir, "single", "one"), { onWarning: () => {} });
    const sharded = await loadRun(join(dir, "sharded", "net"), { onWarning: () => {} });
    assert.deepEqual(sharded.shard_set, { count: SHARDS, present: [0, 1, 2], missing: [] });
    for (const [i, m] of (sharded.manifests as RunManifest[]).entries()) {
      // Each shard reached the simulator by its own host's link, and started on the shared start time.
      assert.equal(new URL(m.targets[0]!.url).hostname, hosts.targetAddr(i));
      assert.equal(m.plan.start_iso, startAt);
      const skew = Date.parse(m.epoch_iso) - Date.parse(startAt);
      assert.ok(skew >= 0 && skew < 1000, `shard ${i}: start skew ${skew} ms (ms 0 minus the shared start)`);
    }

    // The same offered set: 20 req/s × 10 s = 200 arrivals, the same ids, scheduled times and cases.
    const offered = offeredSet(one);
    assert.equal(offered.length, 200);
    assert.deepEqual(offeredSet(sharded), offered);

    const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
    const a = goodput(one, policy).overall, b = goodput(sharded, policy).overall;
    assert.equal(b.offered, a.offered);
    assert.equal(b.measurement_seconds, a.measurement_seconds);
    // Every request answered in both: the fast simulator (1 ms steps, 1,024 sequences, no faults) is far from full.
    assert.deepEqual([a.completed, b.completed], [200, 200]);
    // The noise: after the reset, the simulator draws each answer's quality and validity from one seeded stream in
    // arrival order, so a request's gates depend on where it arrived — three hosts interleave differently from one.
    // At worst the two runs' gate failures are independent: each request fails a gate with probability q ≤ 0.1
    // under data/sim/fast.json (its least likely pass: long_summary accuracy 0.92; tool_agent 0.96 × 0.95 = 0.912),
    // so the difference of the accepted counts has a standard deviation of at most √(2 · 200 · 0.1 · 0.9) = 6:
    // the bound is 3σ = 18 requests, 9 % of the offered (0.9 req/s of goodput over the 10 s).
    const bound = 3 * Math.sqrt(2 * 200 * 0.1 * 0.9);
    assert.ok(
      Math.abs(a.accepted - b.accepted) <= bound,
      `accepted: one run ${a.accepted}, 3 shards ${b.accepted}; the bound is ${bound}`,
    );
    // Latency is not drawn: a request late in one run and on time in the other is the machine's doing, and rare.
    const late = (r: typeof a) => r.failures.late_e2e + r.failures.late_ttft + r.failures.slow_tpot;
    assert.ok(Math.abs(late(a) - late(b)) <= 2, `late requests: one run ${late(a)}, 3 shards ${late(b)}`);
    console.log(
      `one run: accepted ${a.accepted}/${a.offered} (goodput ${a.accepted_goodput}/s); 3 shards: accepted ` +
        `${b.accepted}/${b.offered} (goodput ${b.accepted_goodput}/s); start skews ${
          (sharded.manifests as RunManifest[]).map((m) => Date.parse(m.epoch_iso) - Date.parse(startAt)).join(", ")
        } ms`,
    );
  } finally {
    await hosts.remove();
    Deno.removeSync(dir, { recursive: true });
  }
}
