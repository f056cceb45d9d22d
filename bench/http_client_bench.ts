/**
 * Open-loop benchmark of the runner's HTTP clients against a static SSE responder in another
 * process (so client and server each get a core). For every client, dispatcher and rate it
 * fires arrival i at t0 + i/R, sends every due request at each wakeup without waiting for
 * responses, and reports achieved rate, send lag (actual send start − scheduled), errors,
 * CPU per 1,000 requests and peak RSS. See bench/README.md for commands and results.
 *
 * @module
 */
import process from "node:process";
import { setImmediate } from "node:timers";
import { parseArgs } from "node:util";
import { startClock } from "../runner/clock.ts";
import type { HttpClient, HttpOutcome, HttpRequest, ResponseHandler } from "../runner/http/client.ts";
import { createHttpClient, HTTP_CLIENT_KINDS, type HttpClientKind, SseDecoder } from "../runner/http/mod.ts";
import { startStaticServer, staticSseEvents } from "./static_sse_server.ts";

/** How the dispatcher waits for the next due arrival. */
const DISPATCHERS = ["timer", "hybrid", "immediate", "microtask", "per-request"] as const;
type Dispatcher = typeof DISPATCHERS[number];

interface RunResult {
  client: string;
  dispatcher: Dispatcher;
  rate: number;
  offered: number;
  sent: number;
  unsent: number;
  ok: number;
  errors: number;
  errorKinds: Record<string, number>;
  achieved: number;
  lag: { p50: number; p99: number; max: number };
  latency: { p50: number; p99: number };
  cpuMsPer1k: number;
  peakRssMb: number;
  /** CPU busy on the whole machine during the run, in % of one core (of 200): client + server + anyone else. */
  machinePct: number;
  /** Time the dispatching thread was runnable but not running (kernel run-queue delay). */
  runqWaitMs: number;
}

const clock = startClock();
const BODY = JSON.stringify({
  model: "static",
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: "user", content: "Summarise the quarterly report in three bullet points." }],
});
const EXPECTED_EVENTS = staticSseEvents(64).length;
const EXPECTED_BYTES = new TextEncoder().encode(staticSseEvents(64).join("")).length;

function pct(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** How close to a due arrival the `hybrid` dispatcher stops sleeping on timers. */
let SPIN_MS = 10;

/** A client that answers at once without I/O: what is left is the dispatcher's own lag. */
class NullClient implements HttpClient {
  readonly name = "null";
  readonly #body = new TextEncoder().encode(staticSseEvents(64).join(""));
  send(_req: HttpRequest, handler: ResponseHandler): Promise<HttpOutcome> {
    handler.onHeaders(200, new Map(), clock.now());
    handler.onData(this.#body, clock.now());
    return Promise.resolve({ ok: true, endMs: clock.now() });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const immediate = () => new Promise<void>((r) => setImmediate(r));

/** Waits until about `dueMs` on the run clock, the way the dispatcher variant does. */
async function waitUntil(d: Dispatcher, dueMs: number): Promise<void> {
  const ahead = dueMs - clock.now();
  if (d === "timer") {
    // setTimeout fires late by up to ~1 ms, so wake a little early and send what is due.
    await sleep(Math.max(0, Math.floor(ahead - 0.5)));
  } else if (d === "microtask") {
    // Never yields to the event loop: no I/O completes until the whole schedule is sent.
    await Promise.resolve();
  } else if (d === "hybrid") {
    // Timers fire 1-6 ms late here, so sleep on one only while far away, then yield to I/O
    // with setImmediate (a few µs per turn) until the arrival is due.
    if (ahead > SPIN_MS) await sleep(Math.floor(ahead - SPIN_MS));
    else await immediate();
  } else await immediate();
}

/** One measured open-loop run at `rate` req/s for `seconds`. */
async function run(
  client: HttpClient,
  url: URL,
  d: Dispatcher,
  rate: number,
  seconds: number,
  maxRequests: number,
  dropAfterMs: number,
  decodeSse: boolean,
): Promise<RunResult> {
  const n = Math.min(Math.round(rate * seconds), maxRequests);
  const period = 1000 / rate;
  const lags = new Float64Array(n);
  const latencies = new Float64Array(n);
  const ctl = new AbortController();
  const req = { url, headers: { "content-type": "application/json" }, body: BODY, signal: ctl.signal };
  const errorKinds: Record<string, number> = {};
  let sent = 0, unsent = 0, ok = 0, errors = 0, done = 0, lastEnd = 0;
  let peakRss = Deno.memoryUsage().rss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, Deno.memoryUsage().rss)), 250);
  const inflight = new Set<Promise<void>>();
  const machine0 = cpuTicks();
  const runq0 = runQueueDelayMs();
  const cpu0 = process.cpuUsage();
  const t0 = clock.now() + 20;

  const send = (i: number, due: number) => {
    const start = clock.now();
    const lag = start - due;
    if (lag > dropAfterMs) {
      unsent++;
      return;
    }
    lags[sent++] = lag;
    let status = 0, events = 0, bytes = 0;
    const sse = decodeSse ? new SseDecoder() : undefined;
    const p = client.send(req, {
      onHeaders: (s) => (status = s),
      onData: (piece) => {
        bytes += piece.length;
        if (sse) events += sse.push(piece).length;
      },
    }).then((out) => {
      done++;
      lastEnd = Math.max(lastEnd, out.endMs);
      latencies[i] = out.endMs - due;
      if (sse) events += sse.end().events.length;
      const complete = sse ? events === EXPECTED_EVENTS : bytes === EXPECTED_BYTES;
      if (out.ok && status === 200 && complete) ok++;
      else {
        errors++;
        const kind = out.ok ? (status === 200 ? `body_${bytes}B_${events}ev` : `status_${status}`) : out.kind;
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
      }
      inflight.delete(p);
    });
    inflight.add(p);
  };

  if (d === "per-request") {
    // The naive design: one timer per request, scheduled up front.
    await new Promise<void>((resolve) => {
      let fired = 0;
      for (let i = 0; i < n; i++) {
        const due = t0 + i * period;
        setTimeout(() => (send(i, due), ++fired === n && resolve()), Math.max(0, due - clock.now()));
      }
    });
  } else {
    let i = 0;
    while (i < n) {
      while (i < n && t0 + i * period <= clock.now()) send(i, t0 + i++ * period);
      if (i < n) await waitUntil(d, t0 + i * period);
    }
  }
  const drainUntil = clock.now() + 10_000;
  while (inflight.size > 0 && clock.now() < drainUntil) await sleep(20);
  ctl.abort();
  await Promise.all([...inflight]);
  const cpu = process.cpuUsage(cpu0);
  const machine1 = cpuTicks();
  const runq1 = runQueueDelayMs();
  clearInterval(rssTimer);
  const lagSorted = lags.subarray(0, sent).sort();
  const latSorted = latencies.filter((_, k) => latencies[k]! > 0).sort();
  return {
    client: client.name,
    dispatcher: d,
    rate,
    offered: n,
    sent,
    unsent,
    ok,
    errors,
    errorKinds,
    achieved: ok / ((lastEnd - t0) / 1000),
    lag: { p50: pct(lagSorted, 0.5), p99: pct(lagSorted, 0.99), max: lagSorted[lagSorted.length - 1] ?? NaN },
    latency: { p50: pct(latSorted, 0.5), p99: pct(latSorted, 0.99) },
    cpuMsPer1k: (cpu.user + cpu.system) / 1000 / (sent || 1) * 1000,
    peakRssMb: peakRss / 2 ** 20,
    machinePct: 100 * (machine1.busy - machine0.busy) / (machine1.wall - machine0.wall),
    runqWaitMs: runq1 - runq0,
  };
}

/** Run-queue delay of this process's main thread so far (`/proc/self/schedstat` field 2, ns). */
function runQueueDelayMs(): number {
  return Number(Deno.readTextFileSync("/proc/self/schedstat").split(" ")[1]) / 1e6;
}

/** Busy CPU ticks of the whole machine (all cores) and the wall time, both in 1/100 s. */
function cpuTicks(): { busy: number; wall: number } {
  const cpu = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, wall: performance.now() / 10 };
}

/** wrk (1 thread, like the single-threaded client) against the same server: the physical reference. */
async function runWrk(url: URL, seconds: number, connections: number): Promise<string> {
  const lua = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    lua,
    `wrk.method = "POST"\nwrk.body = [[${BODY}]]\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
  const out = await new Deno.Command("wrk", {
    args: ["-t1", `-c${connections}`, `-d${seconds}s`, "-s", lua, url.href],
    stdout: "piped",
  }).output();
  await Deno.remove(lua);
  const text = new TextDecoder().decode(out.stdout);
  return text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? `wrk failed: ${text.slice(0, 200)}`;
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");

function row(r: RunResult): string {
  const kinds = Object.entries(r.errorKinds).map(([k, v]) => `${k}:${v}`).join(" ");
  return `| ${r.client} | ${r.dispatcher} | ${r.rate} | ${r.sent}/${r.offered} | ${r.unsent} | ${f(r.achieved, 0)} | ${
    f(r.lag.p50, 3)
  } | ${f(r.lag.p99, 3)} | ${f(r.lag.max)} | ${f(r.latency.p50)} | ${f(r.latency.p99)} | ${r.errors}${
    kinds ? ` (${kinds})` : ""
  } | ${f(r.cpuMsPer1k, 0)} | ${f(r.peakRssMb, 0)} | ${f(r.machinePct, 0)} | ${f(r.runqWaitMs, 1)} |`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    allowNegative: true,
    options: {
      clients: { type: "string", default: HTTP_CLIENT_KINDS.join(",") },
      dispatchers: { type: "string", default: "hybrid" },
      rates: { type: "string", default: "1000,2000,3000,5000,7000,10000" },
      seconds: { type: "string", default: "5" },
      "max-requests": { type: "string", default: "60000" },
      "drop-after-ms": { type: "string", default: "1000" },
      server: { type: "string", default: "deno" },
      wrk: { type: "boolean", default: false },
      sse: { type: "boolean", default: true },
      "max-conns": { type: "string", default: "256" },
      "spin-ms": { type: "string", default: "10" },
    },
  });
  const clients = values.clients.split(",") as (HttpClientKind | "null")[];
  const dispatchers = values.dispatchers.split(",") as Dispatcher[];
  const rates = values.rates.split(",").map(Number);
  const seconds = Number(values.seconds);
  const maxRequests = Number(values["max-requests"]);
  const dropAfterMs = Number(values["drop-after-ms"]);
  const maxConns = Number(values["max-conns"]);
  SPIN_MS = Number(values["spin-ms"]);
  const problems = [
    ...(SPIN_MS >= 0 ? [] : [`--spin-ms: ${values["spin-ms"]} must be >= 0`]),
    ...clients.filter((c) => c !== "null" && !HTTP_CLIENT_KINDS.includes(c)).map((c) =>
      `--clients: unknown client ${c}`
    ),
    ...dispatchers.filter((d) => !DISPATCHERS.includes(d)).map((d) => `--dispatchers: unknown dispatcher ${d}`),
    ...rates.filter((r) => !(r > 0)).map((r) => `--rates: ${r} is not a positive rate`),
    ...(seconds > 0 && seconds <= 60 ? [] : [`--seconds: ${values.seconds} must be in (0, 60]`]),
    ...(maxRequests > 0 ? [] : [`--max-requests: ${values["max-requests"]} must be > 0`]),
    ...(Number.isInteger(maxConns) && maxConns > 0
      ? []
      : [`--max-conns: ${values["max-conns"]} must be an integer > 0`]),
  ];
  if (problems.length) {
    console.error(`http_client_bench: bad flags\n  ${problems.join("\n  ")}`);
    Deno.exit(2);
  }
  const server = await startStaticServer(values.server);
  try {
    console.log(`server: ${values.server} ${server.url.href}, ${seconds} s per rate, date ${new Date().toISOString()}`);
    if (values.wrk) console.log(`wrk -t1 -c64 ${seconds}s: ${await runWrk(server.url, seconds, 64)} req/s`);
    console.log(
      "| client | dispatcher | rate/s | sent/offered | unsent | achieved/s | lag p50 ms | lag p99 ms | lag max ms " +
        "| latency p50 ms | latency p99 ms | errors | CPU ms/1k req | peak RSS MB | machine %CPU | run-queue wait ms |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const kind of clients) {
      for (const d of dispatchers) {
        for (const rate of rates) {
          const client = kind === "null"
            ? new NullClient()
            : createHttpClient(kind, { clock, maxConnectionsPerHost: maxConns });
          await run(client, server.url, d, rate, 0.5, maxRequests, dropAfterMs, values.sse); // warm-up: JIT and connections
          console.log(
            row(await run(client, server.url, d, rate, seconds, maxRequests, dropAfterMs, values.sse)),
          );
          await client.close();
        }
      }
    }
  } finally {
    await server.stop();
  }
}
