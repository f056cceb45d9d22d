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
 * ```sh
 * npx deno run -A bench/recorder_http_bench.ts --runs 3 --rounds 20 --requests 500 --tokens 50
 * npx deno run -A bench/recorder_http_bench.ts --runs 3 --rounds 10 --requests 200 --rate 100
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
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
  },
});
const writer = values.writer;
const [sliceMs, batchRows] = [Number(values["slice-ms"]), Number(values["batch-rows"])];
const [runs, rounds, requests, tokens, rate, flushMs] = [
  values.runs,
  values.rounds,
  values.requests,
  values.tokens,
  values.rate,
  values["flush-ms"],
].map(Number);
const ok = (n: number | undefined, min: number) => Number.isSafeInteger(n) && n! >= min;
if (
  !ok(runs, 1) || !ok(rounds, 2) || !ok(requests, 1) || !ok(tokens, 1) || !ok(rate, 0) || !ok(flushMs, 1) ||
  (writer !== "thread" && writer !== "app") || !(sliceMs > 0) || !ok(batchRows, 1)
) {
  console.error(
    "error: --runs ≥ 1, --rounds ≥ 2 (an even count balances the order), --requests ≥ 1, --tokens ≥ 1, --rate ≥ 0 " +
      "(integer), --flush-ms ≥ 1, --writer thread or app, --slice-ms > 0, --batch-rows ≥ 1",
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
      .concat(["--writer", writer!, "--slice-ms", String(sliceMs), "--batch-rows", String(batchRows)]),
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

/** Nearest rank: x₍⌈q·n⌉₎ of the sorted values. */
const rank = (sorted: Float64Array, q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

const summary: { with_p99: number[]; without_p99: number[]; added_p99: number[]; added_p50: number[] } = {
  with_p99: [],
  without_p99: [],
  added_p99: [],
  added_p50: [],
};
for (let run = 1; run <= runs!; run++) {
  const dir = Deno.makeTempDirSync({ prefix: "recorder_http_bench_" });
  const load0 = Deno.loadavg()[0]!;
  const [on, off] = await Promise.all([start("on", `${dir}/run`), start("off", `${dir}/unused`)]);
  try {
    const lat = { on: [] as number[], off: [] as number[] };
    // Warm-up: each server's JIT and connection, discarded.
    await round(on.url, Math.min(200, requests!), []);
    await round(off.url, Math.min(200, requests!), []);
    for (let k = 0; k < rounds!; k++) {
      // with, without; without, with; …: each arm goes first in half the rounds.
      const order = k % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const);
      for (const arm of order) await round(arm === "on" ? on.url : off.url, requests!, lat[arm]);
    }
    const sorted = (xs: number[]) => Float64Array.from(xs).sort();
    const [w, wo] = [sorted(lat.on), sorted(lat.off)];
    const stats = (s: Float64Array) => ({
      n: s.length,
      p50: r3(rank(s, 0.5)),
      p99: r3(rank(s, 0.99)),
      p999: r3(rank(s, 0.999)),
    });
    const sw = stats(w), so = stats(wo);
    summary.with_p99.push(sw.p99);
    summary.without_p99.push(so.p99);
    summary.added_p99.push(r3(sw.p99 - so.p99));
    summary.added_p50.push(r3(sw.p50 - so.p50));
    console.log(JSON.stringify({
      run,
      tokens,
      rate_per_s: rate || "back to back",
      flush_ms: flushMs,
      writer,
      flush_slices: { slice_ms: sliceMs, batch_rows: batchRows },
      ms: { with_recorder: sw, without: so },
      added_ms: { p50: r3(sw.p50 - so.p50), p99: r3(sw.p99 - so.p99), p999: r3(sw.p999 - so.p999) },
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
