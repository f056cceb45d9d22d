/**
 * The Deno floor: the least a sender on this runtime can do for the reference bench's schedule, to tell what the
 * runtime costs per request from what the runner's own code adds. It sends the runner's saved schedule
 * (schedule.csv) with the runner's request bytes over `Deno.connect` — the runner raw client's transport — and does
 * nothing else: one `setTimeout` to each due time (no polling, no waker thread), a stack of keep-alive connections
 * (8 opened before ms 0, as the runner and the reference do), the request in one write, the answer read into one
 * reused 64 KiB buffer until its end (the chunked body's last chunk, or its content-length) with the status line
 * checked and `[DONE]` looked for in the last bytes — no SSE decoding, no JSON, no checks, no hashing, no log.
 * Send lag is taken as the runner and the reference take it: as the request's first write call returns, minus its
 * scheduled time; a request later than `--max-send-lag-ms` at its turn is not sent. It prints one JSON summary in the
 * reference sender's shape (bench/reference_sender/summary.go; `runtime` names Deno), CPU from `process.cpuUsage()`
 * over the process's whole life and peak RSS from VmHWM.
 *
 *   deno run -A bench/floor_sender.ts --schedule schedule.csv \
 *     --url http://127.0.0.1:PORT/v1/chat/completions --body-file body.json [--header "name: value" ...] \
 *     [--idempotency-key-prefix RUN_ID] [--summary-stage steady] [--preconnect 8] [--max-send-lag-ms 1000] \
 *     [--rows rows.csv] [--cpu-window-ms FROM,TO] [--parse]
 *
 * `--rows` writes one CSV row per request: request_id, stage, scheduled_ms, send_lag_ms, completed_ms, outcome.
 * `--cpu-window-ms` has the summary give the CPU time between FROM and TO ms after ms 0 (`window_cpu_ms`), as the
 * reference sender does. `--parse` also reads each answer's events (`ParsedAnswer` below; chunked answers only): an
 * answer is `ok` only when its events parsed and `[DONE]` came, and each row adds first_piece_ms, last_piece_ms,
 * pieces, content_chars and completion_tokens.
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";

const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    schedule: { type: "string" },
    url: { type: "string" },
    "body-file": { type: "string" },
    header: { type: "string", multiple: true, default: [] },
    "idempotency-key-prefix": { type: "string", default: "" },
    "summary-stage": { type: "string", default: "steady" },
    rows: { type: "string" },
    "cpu-window-ms": { type: "string" },
    preconnect: { type: "string", default: "8" },
    "max-send-lag-ms": { type: "string", default: "1000" },
    parse: { type: "boolean", default: false },
  },
});

function fail(message: string): never {
  console.error(`floor_sender: ${message}`);
  Deno.exit(2);
}

if (!v.schedule || !v.url || !v["body-file"]) fail("--schedule, --url and --body-file are required");
const url = new URL(v.url);
const preconnect = Number(v.preconnect);
const maxLagMs = Number(v["max-send-lag-ms"]);
if (!Number.isInteger(preconnect) || preconnect < 0 || !(maxLagMs > 0)) {
  fail("--preconnect a whole number ≥ 0, --max-send-lag-ms > 0");
}

/** One scheduled request and what became of it. */
interface Row {
  id: string;
  stage: string;
  scheduledMs: number;
  lagMs: number;
  completedMs: number;
  outcome: "ok" | "not_sent" | "http_error" | "stream_cut" | "transport_error" | "bad_event" | "";
  /** With `--parse`: what the answer's events held. */
  answer?: ParsedAnswer;
}

/**
 * With `--parse`, each answer read as the runner reads it, and nothing more (a plain reader written for the bench, not
 * tuned): the chunked body taken apart as it comes, its SSE events split (the bench's responders end events with a
 * blank `\n` line), each `data:` payload but `[DONE]` read the way the runner's `openai-chat` dialect reads it —
 * `JSON.parse` for the first plain content event, whose text around the content string becomes the answer's template,
 * and a comparison with that template for each later one, `JSON.parse` again for any that differs or whose content
 * needs unescaping — the content pieces counted and their characters summed, the first and last piece stamped with the
 * read that brought them, and the `usage` block's completion tokens kept. No shape checks, no hashing, no log row
 * until the end: one row per request goes to `--rows`.
 */
class ParsedAnswer {
  firstMs = NaN;
  lastMs = NaN;
  pieces = 0;
  chars = 0;
  completionTokens = NaN;
  done = false;
  bad = false;
  #size = -1; // bytes left in the current chunk; -1: reading a size line
  #line = ""; // a size line split across reads
  #text = "";
  #decoder = new TextDecoder();
  /** The answer's template: its first plain content event's text before and after the content string. */
  #prefix: string | null = null;
  #suffix = "";

  /** Takes `b[from, to)` of the chunked body, read at `atMs`. */
  feed(b: Uint8Array, from: number, to: number, atMs: number): void {
    if (this.#size === -3) return;
    let i = from;
    while (i < to) {
      if (this.#size > 0) {
        const end = Math.min(to, i + this.#size);
        this.#body(b.subarray(i, end), atMs);
        this.#size -= end - i;
        i = end;
      } else if (this.#size === 0 || this.#size === -2) { // the CRLF after a chunk's data
        i++;
        this.#size = this.#size === 0 ? -2 : -1;
      } else {
        const lf = b.indexOf(LF, i);
        const end = lf < 0 || lf >= to ? to : lf;
        this.#line += latin1.decode(b.subarray(i, end));
        i = end;
        if (end === to) break;
        i++;
        const size = parseInt(this.#line, 16);
        this.#line = "";
        if (!(size >= 0)) {
          this.bad = true;
          return;
        }
        this.#size = size === 0 ? -3 : size; // -3: the last chunk; its trailer is left to the caller's end check
        if (size === 0) return;
      }
    }
  }

  #body(bytes: Uint8Array, atMs: number): void {
    this.#text += this.#decoder.decode(bytes, { stream: true });
    for (let k = this.#text.indexOf("\n\n"); k >= 0; k = this.#text.indexOf("\n\n")) {
      const event = this.#text.slice(0, k);
      this.#text = this.#text.slice(k + 2);
      if (event.indexOf("\n") < 0) {
        if (event.startsWith("data:")) this.#data(event.slice(5).trim(), atMs);
      } else for (const line of event.split("\n")) if (line.startsWith("data:")) this.#data(line.slice(5).trim(), atMs);
    }
  }

  #data(payload: string, atMs: number): void {
    if (payload === "[DONE]") {
      this.done = true;
      return;
    }
    const pre = this.#prefix, end = payload.length - this.#suffix.length;
    if (
      pre !== null && end >= pre.length && payload.slice(0, pre.length) === pre && payload.slice(end) === this.#suffix
    ) {
      const content = payload.slice(pre.length, end);
      if (!UNSAFE_IN_STRING.test(content)) return this.#piece(content, atMs);
    }
    let e;
    try {
      e = JSON.parse(payload);
    } catch {
      this.bad = true;
      return;
    }
    const choice = e?.choices?.length === 1 ? e.choices[0] : undefined;
    const content = choice?.delta?.content;
    if (typeof content !== "string") {
      const tokens = e?.usage?.completion_tokens;
      if (typeof tokens === "number") this.completionTokens = tokens;
      return;
    }
    this.#piece(content, atMs);
    // A plain content event (one choice, a delta of content alone, nothing else in it) is the template.
    if (this.#prefix !== null || e.usage || choice.finish_reason || Object.keys(choice.delta).length !== 1) return;
    const marker = `"content":${JSON.stringify(content)}`;
    const at = payload.indexOf(marker);
    if (at < 0 || payload.indexOf(marker, at + 1) >= 0) return;
    this.#prefix = payload.slice(0, at + 11);
    this.#suffix = payload.slice(at + marker.length - 1);
  }

  #piece(content: string, atMs: number): void {
    if (content === "") return;
    if (this.pieces++ === 0) this.firstMs = atMs;
    this.lastMs = atMs;
    this.chars += content.length;
  }
}

function readSchedule(path: string): Row[] {
  const lines = Deno.readTextFileSync(path).split("\n").filter((l) => l !== "");
  const want = "request_id,scheduled_ms,case_id,class,stage,shard";
  if (lines[0] !== want) fail(`${path}: line 1: the header must be ${want}`);
  return lines.slice(1).map((line, i) => {
    const f = line.split(",");
    const t = Number(f[1]);
    if (f.length !== 6 || !(t >= 0) || !Number.isFinite(t)) fail(`${path}: line ${i + 2}: scheduled_ms ${f[1]}`);
    return { id: f[0]!, stage: f[4]!, scheduledMs: t, lagMs: NaN, completedMs: NaN, outcome: "" };
  });
}

const window = v["cpu-window-ms"]?.split(",").map(Number);
if (window && !(window.length === 2 && window[0]! >= 0 && window[1]! > window[0]!)) {
  fail(`--cpu-window-ms ${v["cpu-window-ms"]}: expected FROM,TO with 0 ≤ FROM < TO`);
}
const rows = readSchedule(v.schedule);
const body = Deno.readFileSync(v["body-file"]);
let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\naccept-encoding: identity\r\n`;
for (const h of v.header) {
  const k = h.indexOf(":");
  if (k < 1) fail(`--header ${JSON.stringify(h)}: expected "name: value"`);
  const name = h.slice(0, k).trim();
  if (name.toLowerCase() !== "accept-encoding") head += `${name}: ${h.slice(k + 1).trim()}\r\n`;
}
const enc = new TextEncoder();

/** The request's bytes, in one buffer: the head (with the runner's idempotency key) and the body. */
function requestBytes(id: string): Uint8Array {
  const key = v["idempotency-key-prefix"] ? `idempotency-key: ${v["idempotency-key-prefix"]}:${id}:0\r\n` : "";
  const h = enc.encode(`${head}${key}content-length: ${body.length}\r\n\r\n`);
  const out = new Uint8Array(h.length + body.length);
  out.set(h);
  out.set(body, h.length);
  return out;
}

const buf = new Uint8Array(65536);
const CR = 13, LF = 10;
const latin1 = new TextDecoder("latin1");
/** What a JSON string may not hold unescaped, and the escape character itself. */
// deno-lint-ignore no-control-regex -- control characters are what must be found
const UNSAFE_IN_STRING = /["\\\x00-\x1f]/;
const DONE = enc.encode("[DONE]");

/** Whether `b[0..n)` ends with the chunked body's last chunk, `0\r\n\r\n` after a chunk's `\r\n`. */
function endsChunked(tail: Uint8Array, n: number): boolean {
  return n >= 7 && tail[n - 1] === LF && tail[n - 2] === CR && tail[n - 3] === LF && tail[n - 4] === CR &&
    tail[n - 5] === 48 && tail[n - 6] === LF && tail[n - 7] === CR;
}

function includes(b: Uint8Array, n: number, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= n; i++) {
    for (let j = 0; j < needle.length; j++) if (b[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Reads one answer to its end; "ok" when its status is 200 and `[DONE]` came, else the failure. Only the first read's
 * head is parsed (the status and whether the body is chunked or has a length); the answers here fit their first reads'
 * head. The last 16 bytes of each read are kept to find the terminator and `[DONE]` across reads.
 */
async function readAnswer(conn: Deno.Conn, answer?: ParsedAnswer): Promise<Row["outcome"]> {
  let n = await conn.read(buf);
  if (n === null) return "stream_cut";
  let headEnd = -1;
  for (let i = 3; i < n; i++) {
    if (buf[i] === LF && buf[i - 1] === CR && buf[i - 2] === LF && buf[i - 3] === CR) {
      headEnd = i + 1;
      break;
    }
  }
  if (headEnd < 0) return "stream_cut";
  const headText = new TextDecoder().decode(buf.subarray(0, headEnd)).toLowerCase();
  const status = Number(headText.slice(9, 12));
  const chunked = headText.includes("transfer-encoding: chunked");
  const length = /content-length:\s*(\d+)/.exec(headText);
  let rest = length ? Number(length[1]) - (n - headEnd) : Infinity;
  let done = includes(buf, n, DONE);
  const tail = new Uint8Array(32);
  let t = 0;
  const keep = (from: number, to: number) => {
    const m = Math.min(16, to - from);
    tail.copyWithin(0, Math.max(0, t - 16), t);
    t = Math.min(t, 16);
    tail.set(buf.subarray(to - m, to), t);
    t += m;
  };
  keep(headEnd, n);
  // --parse takes the chunked answers of the bench's responders only; a refusal is still an http_error.
  if (answer && !chunked) return status !== 200 ? "http_error" : "bad_event";
  answer?.feed(buf, headEnd, n, now());
  while (chunked ? !endsChunked(tail, t) : rest > 0) {
    n = await conn.read(buf);
    if (n === null) return "stream_cut";
    rest -= n;
    keep(0, n);
    answer?.feed(buf, 0, n, now());
    done ||= includes(buf, n, DONE) || includes(tail, t, DONE); // the tail: "[DONE]" across two reads
  }
  if (status !== 200) return "http_error";
  if (answer) return answer.bad ? "bad_event" : answer.done ? "ok" : "stream_cut";
  return done ? "ok" : "stream_cut";
}

const idle: Deno.Conn[] = [];
const connect = () => Deno.connect({ hostname: url.hostname, port: Number(url.port || 80) });
let t0 = performance.now();
const now = () => performance.now() - t0;

async function send(r: Row | null, id: string): Promise<void> {
  const handed = now();
  let sent = NaN;
  let conn = idle.pop();
  try {
    conn ??= await connect();
    const bytes = requestBytes(id);
    const first = conn.write(bytes);
    sent = now();
    let written = await first;
    while (written < bytes.length) written += await conn.write(bytes.subarray(written));
    const answer = v.parse && r ? (r.answer = new ParsedAnswer()) : undefined;
    const outcome = await readAnswer(conn, answer);
    if (r) {
      r.outcome = outcome;
      if (outcome === "ok") r.completedMs = now();
    }
    if (outcome === "ok") idle.push(conn);
    else conn.close();
  } catch {
    if (r) r.outcome = "transport_error";
    try {
      conn?.close();
    } catch { /* already closed */ }
  }
  if (r) r.lagMs = (Number.isNaN(sent) ? handed : sent) - r.scheduledMs;
}

await Promise.all(Array.from({ length: preconnect }, (_, i) => send(null, `warm-up-${i}`)));
t0 = performance.now();
const inFlight: Promise<void>[] = [];
const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
let windowCpuMs: number | null = null;
if (window) {
  const [from, to] = window as [number, number];
  inFlight.push(
    new Promise<void>((done) =>
      setTimeout(() => {
        const c0 = cpuNow();
        setTimeout(() => {
          windowCpuMs = cpuNow() - c0;
          done();
        }, to - now());
      }, from - now())
    ),
  );
}
let i = 0;
while (i < rows.length) {
  const wait = rows[i]!.scheduledMs - now();
  if (wait > 0) await new Promise((res) => setTimeout(res, Math.ceil(wait)));
  const at = now();
  while (i < rows.length && rows[i]!.scheduledMs <= at) {
    const r = rows[i++]!;
    if (at - r.scheduledMs > maxLagMs) {
      r.outcome = "not_sent";
      r.lagMs = at - r.scheduledMs;
    } else inFlight.push(send(r, r.id));
  }
}
await Promise.all(inFlight);
for (const c of idle) c.close();

if (v.rows) {
  const num = (x: number) => Number.isNaN(x) ? "" : String(x);
  const parsed = (a: ParsedAnswer | undefined) =>
    a ? `,${num(a.firstMs)},${num(a.lastMs)},${a.pieces},${a.chars},${num(a.completionTokens)}` : ",,,,,";
  Deno.writeTextFileSync(
    v.rows,
    "request_id,stage,scheduled_ms,send_lag_ms,completed_ms,outcome" +
      (v.parse ? ",first_piece_ms,last_piece_ms,pieces,content_chars,completion_tokens\n" : "\n") +
      rows.map((r) =>
        `${r.id},${r.stage},${r.scheduledMs},${num(r.lagMs)},${num(r.completedMs)},${r.outcome}` +
        (v.parse ? parsed(r.answer) : "") + "\n"
      ).join(""),
  );
}

const lags = rows.filter((r) => r.stage === v["summary-stage"] && !Number.isNaN(r.lagMs)).map((r) => r.lagMs)
  .sort((a, b) => a - b);
const rank = (p: number) => lags.length ? lags[Math.max(0, Math.ceil(p * lags.length) - 1)]! : null;
const ok = rows.filter((r) => r.outcome === "ok");
const notSent = rows.filter((r) => r.outcome === "not_sent").length;
const last = Math.max(...ok.map((r) => r.completedMs));
const cpu = process.cpuUsage();
const hwm = /VmHWM:\s*(\d+)\s*kB/.exec(Deno.readTextFileSync("/proc/self/status"));
console.log(JSON.stringify({
  n: rows.length,
  ok: ok.length,
  not_sent: notSent,
  failed: rows.length - ok.length - notSent,
  stage: v["summary-stage"],
  stage_n: lags.length,
  send_lag_p50_ms: rank(0.5),
  send_lag_p99_ms: rank(0.99),
  send_lag_max_ms: rank(1),
  completed_rps: ok.length ? ok.length / ((last - rows[0]!.scheduledMs) / 1000) : 0,
  cpu_user_ms: cpu.user / 1000,
  cpu_sys_ms: cpu.system / 1000,
  peak_rss_bytes: hwm ? Number(hwm[1]) * 1024 : null,
  ...(windowCpuMs === null ? {} : { window_cpu_ms: windowCpuMs }),
  runtime: `deno ${Deno.version.deno}`,
}));
