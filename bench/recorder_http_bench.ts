/**
 * The recorder's added latency to the app's request, side by side (docs/recorder.md "Cost"): two processes of the
 * same Deno.serve handler (bench/_recorder_http_server.ts), one recording every request and one not, and this
 * process sending `POST /chat` to them one request at a time (keep-alive), reading each streamed answer to its end,
 * in interleaved rounds (with, without, without, with, …: neither arm always goes first). Each request's latency is
 * send → last byte, ms, the requests of a round back to back or paced at `--rate` per second. Per run: p50, p99 and
 * p99.9 of each arm and their differences (with − without), the load average before and after; `--runs` fresh pairs
 * of processes. Prints one JSON line per run, then a summary line. `--flush-ms` sets the recording app's flush
 * interval (the recorder's default, 1000); `--writer thread|app` where it writes its log (the recorder's `writer`
 * option, default thread); `--slice-ms` and `--batch-rows` how its flush shares the app's thread
 * (recorder/recorder.ts `FLUSH_SLICES`, default: the recorder's).
 *
 * `--interleave request` alternates the arms request by request instead of round by round: each round is `--requests`
 * pairs, the two requests of a pair back to back in the order with, without / without, with / … (ABBA), pair i not
 * before i / `rate` s from the round's start — each arm served at `--rate`, and a slow moment of the machine falls on
 * both arms alike. Each run also gives a 95 % bootstrap interval of the added p50 and p99 (both arms resampled 2,000
 * times, seeded). `--time-calls` has the recording app time its own recorder calls (bench/_recorder_http_server.ts):
 * per request, the wall time the recorder holds the request's path, measured inside the app (no network, no client in
 * it), its p50 / p99 / p99.9 / max in µs. `--time-handler` (not with `--time-calls`) has both apps time their handler's
 * synchronous work per request (one pair of clock reads a request in each), and gives each arm's p50 / p99 / p99.9 in µs
 * and the added p50 and p99 with their 95 % bootstrap intervals: the recorder's direct cost on the request's path, in
 * the app, against the same work without it. `--settle-ms` is the recording app's `buffer.settle_ms` (the recorder's
 * default, 50); `--sample` its sampling rate (default 1: every request recorded; a tiny rate measures what a request
 * the recorder leaves out costs).
 *
 * ```sh
 * npx deno run -A bench/recorder_http_bench.ts --runs 3 --rounds 20 --requests 500 --tokens 50
 * npx deno run -A bench/recorder_http_bench.ts --runs 3 --rounds 10 --requests 200 --rate 100
 * npx deno run -A bench/recorder_http_bench.ts --runs 3 --rounds 10 --requests 300 --rate 100 --interleave request --time-calls
 * npx deno run -A bench/recorder_http_bench.ts --runs 3 --rounds 10 --requests 300 --rate 100 --interleave request --time-handler
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../lib/prng.ts";
import { FLUSH_SLICES } from "../recorder/recorder.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "3" },
    rounds: { type: "string", default: "20" },
    requests: { type: "string", default: "500" },
    tokens: { type: "string", default: "50" },
    rate: { type: "string", default: "0" },
    "flush-ms": { type: "string", default: "1000" },
    writer: { type: "string", default: "thread" },
    "slice-ms": { type: "string", default: String(FLUSH_SLICES.slice_ms) },
    "batch-rows": { type: "string", default: String(FLUSH_SLICES.batch_rows) },
    interleave: { type: "string", default: "round" },
    "time-calls": { type: "boolean", default: false },
    "time-handler": { type: "boolean", default: false },
    "settle-ms": { type: "string", default: "50" },
    sample: { type: "string", default: "1" },
  },
});
const writer = values.writer;
const interleave = values.interleave;
const timeCalls = values["time-calls"];
const timeHandler = values["time-handler"];
const sample = Number(values.sample);
const [sliceMs, batchRows] = [Number(values["slice-ms"]), Number(values["batch-rows"])];
const [runs, rounds, requests, tokens, rate, flushMs, settleMs] = [
  values.runs,
  values.rounds,
  values.requests,
  values.tokens,
  values.rate,
  values["flush-ms"],
  values["settle-ms"],
].map(Number);
const ok = (n: number | undefined, min: number) => Number.isSafeInteger(n) && n! >= min;
if (
  !ok(runs, 1) || !ok(rounds, 2) || !ok(requests, 1) || !ok(tokens, 1) || !ok(rate, 0) || !ok(flushMs, 1) ||
  (writer !== "thread" && writer !== "app") || !(sliceMs > 0) || !ok(batchRows, 1) ||
  (interleave !== "round" && interleave !== "request") || !ok(settleMs, 0) || (timeCalls && timeHandler) ||
  !(sample > 0 && sample <= 1)
) {
  console.error(
    "error: --runs ≥ 1, --rounds ≥ 2 (an even count balances the order), --requests ≥ 1, --tokens ≥ 1, --rate ≥ 0 " +
      "(integer), --flush-ms ≥ 1, --settle-ms ≥ 0, --writer thread or app, --slice-ms > 0, --batch-rows ≥ 1, " +
      "--interleave round or request, not both --time-calls and --time-handler, 0 < --sample ≤ 1",
  );
  Deno.exit(2);
}
const SERVER = fileURLToPath(new URL("./_recorder_http_server.ts", import.meta.url));

interface Server {
  url: string;
  stop(): Promise<void>;
}

async function start(arm: "on" | "off", out: string): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", SERVER]
      .concat(["--recorder", arm, "--tokens", String(tokens), "--out", out, "--flush-ms", String(flushMs)])
      .concat(["--settle-ms", String(settleMs), "--sample", String(sample)])
      .concat(["--writer", writer!, "--slice-ms", String(sliceMs), "--batch-rows", String(batchRows)])
      .concat(timeCalls ? ["--time-calls"] : [])
      .concat(timeHandler ? ["--time-handler"] : []),
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/listening on (\S+)/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the ${arm} server exited: ${seen}`);
    seen += value;
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  return {
    url: /listening on (\S+)/.exec(seen)![1]!,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/**
 * `n` requests one after the other — back to back, or request i not before i / `rate` s from the round's start —;
 * each latency (send → last byte), ms.
 */
async function round(url: string, n: number, into: number[]): Promise<void> {
  const body = JSON.stringify({ text: "How long does delivery take?" });
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const wait = rate! > 0 ? start + (i * 1000) / rate! - performance.now() : 0;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    const res = await fetch(`${url}/chat`, { method: "POST", body, headers: { "content-type": "application/json" } });
    await res.arrayBuffer();
    into.push(performance.now() - t0);
  }
}

/**
 * `n` pairs, one request to each arm back to back, with first in pairs 0, 3, 4, 7, … (ABBA), pair i not before
 * i / `rate` s from the round's start (back to back without a rate); each latency (send → last byte), ms, by arm.
 */
async function pairedRound(urls: { on: string; off: string }, n: number, into: { on: number[]; off: number[] }) {
  const body = JSON.stringify({ text: "How long does delivery take?" });
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const wait = rate! > 0 ? start + (i * 1000) / rate! - performance.now() : 0;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const order = i % 4 === 0 || i % 4 === 3 ? (["on", "off"] as const) : (["off", "on"] as const);
    for (const arm of order) {
      const t0 = performance.now();
      const res = await fetch(`${urls[arm]}/chat`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
      await res.arrayBuffer();
      into[arm].push(performance.now() - t0);
    }
  }
}

/**
 * A 95 % percentile-bootstrap interval of rank(with, q) − rank(without, q): both samples resampled with replacement
 * `b` times (seeded), the 2.5th and 97.5th percentiles of the differences, ms.
 */
function bootstrapDiff(w: Float64Array, wo: Float64Array, q: number, b = 2000): [number, number] {
  const rnd = mulberry32(20261201);
  const resample = (s: Float64Array, into: Float64Array) => {
    for (let i = 0; i < into.length; i++) into[i] = s[Math.floor(rnd() * s.length)]!;
    return into.sort();
  };
  const [bw, bwo] = [new Float64Array(w.length), new Float64Array(wo.length)];
  const diffs = new Float64Array(b);
  for (let k = 0; k < b; k++) diffs[k] = rank(resample(w, bw), q) - rank(resample(wo, bwo), q);
  diffs.sort();
  return [rank(diffs, 0.025), rank(diffs, 0.975)];
}

/** Nearest rank: x₍⌈q·n⌉₎ of the sorted values. */
const rank = (sorted: Float64Array, q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

const summary: {
  with_p99: number[];
  without_p99: number[];
  added_p99: number[];
  added_p50: number[];
  added_p99_ci95: [number, number][];
  recorder_calls_us_p99: number[];
  handler_added_us_p50: number[];
  handler_added_us_p99: number[];
  handler_added_us_p99_ci95: [number, number][];
} = {
  with_p99: [],
  without_p99: [],
  added_p99: [],
  added_p50: [],
  added_p99_ci95: [],
  recorder_calls_us_p99: [],
  handler_added_us_p50: [],
  handler_added_us_p99: [],
  handler_added_us_p99_ci95: [],
};
/** The apps' handler times of the requests served since the last ask (`--time-handler`), µs, sorted. */
async function handlerTimes(url: string): Promise<Float64Array> {
  const { handler } = await (await fetch(`${url}/calls`)).json() as { handler: number[] };
  return Float64Array.from(handler).sort();
}
for (let run = 1; run <= runs!; run++) {
  const dir = Deno.makeTempDirSync({ prefix: "recorder_http_bench_" });
  const load0 = Deno.loadavg()[0]!;
  const [on, off] = await Promise.all([start("on", `${dir}/run`), start("off", `${dir}/unused`)]);
  try {
    const lat = { on: [] as number[], off: [] as number[] };
    // Warm-up: each server's JIT and connection, discarded.
    await round(on.url, Math.min(200, requests!), []);
    await round(off.url, Math.min(200, requests!), []);
    // The warm-up's own call times are not the run's.
    if (timeCalls || timeHandler) await (await fetch(`${on.url}/calls`)).arrayBuffer();
    if (timeHandler) await (await fetch(`${off.url}/calls`)).arrayBuffer();
    for (let k = 0; k < rounds!; k++) {
      if (interleave === "request") {
        await pairedRound({ on: on.url, off: off.url }, requests!, lat);
        continue;
      }
      // with, without; without, with; …: each arm goes first in half the rounds.
      const order = k % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const);
      for (const arm of order) await round(arm === "on" ? on.url : off.url, requests!, lat[arm]);
    }
    const timedCalls = timeCalls
      ? await (await fetch(`${on.url}/calls`)).json() as { total: number[]; by_call: Record<string, number[]> }
      : null;
    const calls = timedCalls ? Float64Array.from(timedCalls.total).sort() : null;
    const sorted = (xs: number[]) => Float64Array.from(xs).sort();
    const [w, wo] = [sorted(lat.on), sorted(lat.off)];
    const stats = (s: Float64Array) => ({
      n: s.length,
      p50: r3(rank(s, 0.5)),
      p99: r3(rank(s, 0.99)),
      p999: r3(rank(s, 0.999)),
    });
    const sw = stats(w), so = stats(wo);
    const ci50 = bootstrapDiff(w, wo, 0.5).map(r3) as [number, number];
    const ci99 = bootstrapDiff(w, wo, 0.99).map(r3) as [number, number];
    const usStats = (s: Float64Array) => ({
      n: s.length,
      p50: r3(rank(s, 0.5)),
      p99: r3(rank(s, 0.99)),
      p999: r3(rank(s, 0.999)),
      max: r3(s[s.length - 1]!),
    });
    const callStats = calls && calls.length > 0
      ? {
        ...usStats(calls),
        by_call: Object.fromEntries(
          Object.entries(timedCalls!.by_call).map(([name, xs]) => [name, usStats(Float64Array.from(xs).sort())]),
        ),
      }
      : null;
    let handler = null;
    if (timeHandler) {
      const [hw, hwo] = [await handlerTimes(on.url), await handlerTimes(off.url)];
      const [hs, hso] = [usStats(hw), usStats(hwo)];
      handler = {
        us: { with_recorder: hs, without: hso },
        added_us: { p50: r3(hs.p50 - hso.p50), p99: r3(hs.p99 - hso.p99), p999: r3(hs.p999 - hso.p999) },
        added_us_ci95: {
          p50: bootstrapDiff(hw, hwo, 0.5).map(r3) as [number, number],
          p99: bootstrapDiff(hw, hwo, 0.99).map(r3) as [number, number],
        },
      };
      summary.handler_added_us_p50.push(handler.added_us.p50);
      summary.handler_added_us_p99.push(handler.added_us.p99);
      summary.handler_added_us_p99_ci95.push(handler.added_us_ci95.p99);
    }
    summary.added_p99_ci95.push(ci99);
    if (callStats) summary.recorder_calls_us_p99.push(callStats.p99);
    summary.with_p99.push(sw.p99);
    summary.without_p99.push(so.p99);
    summary.added_p99.push(r3(sw.p99 - so.p99));
    summary.added_p50.push(r3(sw.p50 - so.p50));
    console.log(JSON.stringify({
      run,
      tokens,
      rate_per_s: rate || "back to back",
      flush_ms: flushMs,
      settle_ms: settleMs,
      sample,
      writer,
      interleave,
      flush_slices: { slice_ms: sliceMs, batch_rows: batchRows },
      ms: { with_recorder: sw, without: so },
      added_ms: { p50: r3(sw.p50 - so.p50), p99: r3(sw.p99 - so.p99), p999: r3(sw.p999 - so.p999) },
      added_ms_ci95: { p50: ci50, p99: ci99 },
      recorder_calls_us: callStats,
      handler,
      load_average_1m: { before: r3(load0), after: r3(Deno.loadavg()[0]!) },
      cores: navigator.hardwareConcurrency,
      runtime: `deno ${Deno.version.deno}`,
    }));
  } finally {
    await Promise.all([on.stop(), off.stop()]);
    Deno.removeSync(dir, { recursive: true });
  }
}
console.log(JSON.stringify({ summary }));
