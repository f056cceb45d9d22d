/**
 * The simulator under clients that cut their streams: the soak that killed `npx deno task sim` twice (issue 29).
 * Starts the sim CLI as its own process (the flags of `deno task sim`, a fast profile of 256 slots written to a
 * temporary file) and sends it `--requests` streamed chat completions on loopback, `--width` at a time, each from a raw
 * client (testing/cut_client.ts) that cuts at a seeded random point: a fifth each right after sending, after a pause of
 * 0–40 ms, inside the head or first tokens (1–3,000 bytes), just short of the end (3,000–7,000 bytes), or never.
 * Stops at `--requests` or after `--max-s`, whichever is first. Then it asks the sim's /health and checks that it
 * is alive, that nothing is left running, queued or holding KV, and that every request reached one end
 * (finished + shed + client_closed = requests), then stops the sim with SIGTERM and reads its exit code and stderr.
 * Prints one JSON line; exits 1 when a check fails.
 *
 *   deno run -A bench/sim_cut_streams_bench.ts [--requests 100000] [--width 200] [--max-s 900] [--seed 29]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type CutPoint, cutRequest, type CutResult } from "../testing/cut_client.ts";
import { seededUniform } from "../testing/seeded.ts";

const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "100000" },
    width: { type: "string", default: "200" },
    "max-s": { type: "string", default: "900" },
    seed: { type: "string", default: "29" },
    port: { type: "string", default: "18929" },
  },
});
const requests = Number(v.requests), width = Number(v.width), maxMs = Number(v["max-s"]) * 1000;
const port = Number(v.port);

const PROFILE = {
  name: "cut-streams-bench",
  replicas: { initial: 1, min: 1, max: 1 },
  engine: {
    prefill_ms_per_token: 0,
    prefill_overhead_ms: 0,
    decode_step_ms_base: 5,
    decode_step_ms_per_seq: 0.02,
    max_running_seqs: 256,
    max_kv_tokens: 2_000_000,
  },
  queue: { max_len: 256, max_age_ms: 2000 },
  cold_start: { warmup_ms: 0, slowdown: 1 },
};

const KINDS = ["after_send", "after_ms", "head_or_first_tokens", "near_end", "read_all"] as const;
type Kind = typeof KINDS[number];

function cutOf(u: () => number): [Kind, CutPoint] {
  const kind = KINDS[Math.floor(u() * KINDS.length)]!;
  if (kind === "after_send") return [kind, { kind: "after_send" }];
  if (kind === "after_ms") return [kind, { kind: "after_ms", ms: Math.floor(u() * 40) }];
  if (kind === "head_or_first_tokens") return [kind, { kind: "after_bytes", bytes: 1 + Math.floor(u() * 3000) }];
  if (kind === "near_end") return [kind, { kind: "after_bytes", bytes: 3000 + Math.floor(u() * 4000) }];
  return [kind, { kind: "read_all" }];
}

const dir = await Deno.makeTempDir({ prefix: "sim-cut-bench-" });
const profileFile = `${dir}/profile.json`;
await Deno.writeTextFile(profileFile, JSON.stringify(PROFILE));
const root = new URL("..", import.meta.url).pathname;
const sim = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--allow-net=127.0.0.1,localhost",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--unstable-no-legacy-abort",
    "sim/cli.ts",
    "--port",
    String(port),
    "--profile",
    profileFile,
    "--quiet",
  ],
  cwd: root,
  stdout: "piped",
  stderr: "piped",
}).spawn();
const stderrText = new Response(sim.stderr).text();
const stdout = sim.stdout.getReader();
const first = await stdout.read();
stdout.releaseLock();
const url = new TextDecoder().decode(first.value ?? new Uint8Array()).trim();
if (!url.startsWith("http://")) {
  console.error(`the sim did not start: ${url} ${await stderrText}`);
  Deno.exit(1);
}

let simExit: Deno.CommandStatus | null = null;
sim.status.then((s) => simExit = s);
const load0 = Deno.loadavg();
const u = seededUniform(Number(v.seed));
const byKind = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
const statuses: Record<string, number> = {};
let sent = 0, completeStreams = 0, clientErrors = 0;
let firstClientError: string | undefined;
const t0 = performance.now();
const inflight = new Set<Promise<void>>();
while (sent < requests && performance.now() - t0 < maxMs && simExit === null) {
  const [kind, cut] = cutOf(u);
  byKind[kind]++;
  const body = {
    model: "sim-llm",
    stream: true,
    messages: [{ role: "user", content: `Tell me about ${sent}.` }],
    max_tokens: 8 + (sent % 33),
  };
  sent++;
  const p = cutRequest(port, body, cut).then(
    (r: CutResult) => {
      const s = String(r.status ?? "none");
      statuses[s] = (statuses[s] ?? 0) + 1;
      if (r.done) completeStreams++;
    },
    (e: unknown) => {
      clientErrors++;
      firstClientError ??= String(e);
    },
  ).finally(() => inflight.delete(p));
  inflight.add(p);
  if (inflight.size >= width) await Promise.race(inflight);
}
await Promise.all(inflight);
const seconds = (performance.now() - t0) / 1000;

// Wait until the sim has dropped every cut request (at most 10 s), then read its counters and its memory.
let health: Record<string, number> | null = null;
for (const until = Date.now() + 10_000; Date.now() < until && simExit === null;) {
  health = await (await fetch(`${url}/health`)).json().catch(() => null);
  if (health && health.running === 0 && health.queue_len === 0) break;
  await new Promise((r) => setTimeout(r, 100));
}
// Its peak resident memory and its resident memory now, once every cut request is dropped (MB).
const memory = await Deno.readTextFile(`/proc/${sim.pid}/status`).then(
  (s) => ({
    peak: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? NaN) / 1024,
    now: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? NaN) / 1024,
  }),
  () => ({ peak: NaN, now: NaN }),
);
const alive = simExit === null;
if (alive) sim.kill("SIGTERM");
const exit = await sim.status;
const err = await stderrText;
await Deno.remove(dir, { recursive: true });

const accounted = health ? health.finished! + health.shed! + health.client_closed! : NaN;
const checks = {
  alive_at_end: alive,
  exit_code_0: exit.code === 0,
  stderr_empty: err.trim() === "",
  nothing_left: health !== null && health.running === 0 && health.queue_len === 0 && health.kv_tokens === 0,
  every_request_accounted: accounted === sent,
  no_client_errors: clientErrors === 0,
};
console.log(JSON.stringify({
  requests: sent,
  seconds: Number(seconds.toFixed(1)),
  rps: Number((sent / seconds).toFixed(0)),
  width,
  cuts: byKind,
  statuses,
  complete_streams: completeStreams,
  client_errors: clientErrors,
  ...(firstClientError ? { first_client_error: firstClientError } : {}),
  sim: health && {
    admitted: health.admitted,
    finished: health.finished,
    shed: health.shed,
    client_closed: health.client_closed,
    kv_tokens: health.kv_tokens,
  },
  sim_peak_rss_mb: Number(memory.peak.toFixed(0)),
  sim_rss_at_end_mb: Number(memory.now.toFixed(0)),
  loadavg_before: load0,
  loadavg_after: Deno.loadavg(),
  checks,
  stderr: err.trim().slice(0, 2000),
}));
if (!Object.values(checks).every(Boolean)) Deno.exit(1);
