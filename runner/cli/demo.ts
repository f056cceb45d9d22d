/**
 * `deno task demo`: starts the simulator on a free loopback port (its own
 * process, so it does not share the runner's event loop) with the demo
 * profile (default capacity, about 8 req/s, plus a 5-s 503 outage), resets
 * its clock at ms 0 of the run, and runs `data/plans/demo-timeline.json` of
 * design-v1: a warm-up, six constant steps from 4 to 14 req/s across the
 * capacity (the knee), a 20 req/s gamma burst (its backlog drains during
 * the next stage) and a 4 req/s recovery stage in which the outage falls
 * (103–108 s). Writes `out/<run-id>/` in CSV and Parquet, stops the
 * simulator and prints per-stage outcome counts. About 2 minutes.
 *
 * This is the timeline run alone, with no analysis (the runner never imports
 * analysis/). The full demo — this run, three route runs, the analysis, the
 * route comparison with cost per accepted task and the HTML report — is
 * `scripts/demo.ts`.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { formatRunReport } from "../report.ts";
import { runLoadTest } from "../run.ts";
import { loadSimProfile } from "../../schema/sim_profile.ts";
import { loadPlan } from "../schedule.ts";
import { InputCheck, parseFlags, runMain } from "./_cli.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const USAGE = "usage: deno task demo [--plan F] [--profile F] [--out DIR] [--seed N]";

if (import.meta.main) {
  await runMain(async () => {
    const { values: v } = parseFlags(Deno.args, {
      plan: { type: "string", default: join(ROOT, "data/plans/demo-timeline.json") },
      profile: { type: "string", default: join(ROOT, "data/sim/demo.json") },
      out: { type: "string", default: "out" },
      seed: { type: "string", default: "1" },
    }, USAGE);
    // Every flag and file, all problems named at once, before the simulator starts.
    const check = new InputCheck();
    const seed = check.number("seed", v.seed, { min: 0, integer: true });
    await check.load(() => loadPlan(v.plan!));
    await check.load(() => loadSimProfile(v.profile!));
    check.throwIfAny(USAGE);
    const workload = join(ROOT, "data/workloads/design-v1");
    // Absolute paths: the simulator runs with the repository root as its working folder.
    const sim = await startSimProcess({
      root: ROOT,
      profile: resolve(v.profile!),
      workload,
      seed: seed!,
      quiet: false,
    });
    console.error(`simulator listening on ${sim.url} (profile ${v.profile})`);
    try {
      const { dir, manifest, summary } = await runLoadTest({
        workload,
        plan: v.plan!,
        target: sim.url,
        out: v.out!,
        formats: ["csv", "parquet"],
        conditions: join(ROOT, "data/conditions/sim-demo.json"),
        seed: seed!,
        // The profile's outage windows count from the simulator's last reset: make that ms 0 of the run.
        atStart: () => sim.reset(),
      });
      console.log(formatRunReport(manifest, summary));
      console.log(`run written to ${dir} (${Object.keys(manifest.files).join(", ")})`);
    } finally {
      await sim.stop();
    }
    return 0;
  });
}

/** A running simulator process. */
export interface SimProcess {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The profile file it runs. */
  profile: string;
  /** `POST /sim/reset`: the simulator's outage clock, PRNG and rate-limit buckets restart now. */
  reset(): Promise<void>;
  /** SIGTERM, then wait for exit. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@linkcode startSimProcess}. */
export interface SimProcessOptions {
  /** Repository root: sim/cli.ts is found under it, and relative paths resolve against it. */
  root: string;
  profile: string;
  workload: string;
  seed: number;
  /** The simulator exits by itself after this long, so a killed script never leaves one behind for long. @default 600 */
  maxLifeS?: number;
  /** Silences the simulator's own log on stderr. @default true */
  quiet?: boolean;
}

/**
 * Starts `sim/cli.ts --port 0` in its own process (so it never shares the
 * runner's event loop) and waits (at most 30 s) for the URL it prints.
 * Shared with scripts/ (the runner never imports scripts/).
 */
export async function startSimProcess(o: SimProcessOptions): Promise<SimProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1,localhost",
      "--allow-read",
      "--allow-env",
      // The simulator watches request.signal only for queued requests (a client that leaves, leaves the queue).
      "--unstable-no-legacy-abort",
      join(o.root, "sim/cli.ts"),
      ...["--port", "0", "--profile", o.profile, "--workload", o.workload, "--seed", String(o.seed)],
      ...["--duration-s", String(o.maxLifeS ?? 600), ...(o.quiet ?? true ? ["--quiet"] : [])],
    ],
    cwd: o.root,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
      if (!m) continue;
      // Keep draining stdout so the simulator never blocks on a full pipe.
      (async () => {
        while (!(await reader.read()).done);
      })();
      let stopped: Promise<void> | null = null;
      const url = m[0];
      return {
        url,
        profile: o.profile,
        reset: () => resetSim(url),
        stop() {
          stopped ??= (async () => {
            try {
              child.kill("SIGTERM");
            } catch (e) {
              // Already exited (its --duration-s ran out): nothing to stop.
              if (!(e instanceof TypeError)) throw e;
            }
            await child.status;
          })();
          return stopped;
        },
      };
    }
  } finally {
    clearTimeout(timer);
  }
  await child.status;
  throw new Error(`the simulator (${o.profile}) exited before printing its URL; it printed: ${seen.slice(0, 500)}`);
}

async function resetSim(url: string): Promise<void> {
  const res = await fetch(`${url}/sim/reset`, { method: "POST", signal: AbortSignal.timeout(5000) });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`${url}/sim/reset: HTTP ${res.status}`);
}
