/**
 * A misbehaving OpenAI-style HTTP/1.1 server for tests, on raw TCP so it can misbehave at the
 * byte level. It listens on 127.0.0.1, port 0 (a free port).
 *
 * The mode of a request is, in order: `options.pick(request)`, the `x-fault-mode` header, the
 * first path segment when it names a mode (`/cut/v1/chat/completions` → `cut`), else `ok-sse`
 * when the JSON body has `"stream": true` and `ok-json` otherwise. Parameters come from the
 * query or headers: `tokens` / `x-fault-tokens` (token chunks, default `options.tokens` = 8),
 * `delay_ms` / `x-fault-delay-ms` (gap of `slow`, wait of `queued`, default `options.slowDelayMs` = 20).
 *
 * Token i's text is `tok{i} ` (so 3 tokens read `tok0 tok1 tok2 `). `prompt_tokens` in usage
 * is the number of whitespace-separated words in the request's message contents (0 when the
 * body is not JSON). SSE bodies are sent chunked, one chunk per event (`data: {json}\n\n`);
 * the OpenAI events are, in order: a role chunk (`delta: {role: "assistant", content: ""}`),
 * one chunk per token (`delta: {content}`), a finish chunk (`delta: {}`, `finish_reason:
 * "stop"`), a usage chunk (`choices: []`, `usage`), then `data: [DONE]`. Responses without a
 * `connection: close` keep the connection alive for the next request.
 *
 * @module
 */

import { badTimeline, MISSHAPEN_SSE, misshapenEvents, misshapenJson } from "./fault_misshapen.ts";
import { WIRE_MODES, wireAnswer, type WireMode } from "./fault_wire.ts";

/**
 * Every mode and exactly what it sends after reading the full request:
 * - `ok-sse`: `200`, `content-type: text/event-stream`, chunked OpenAI stream as above, `0\r\n\r\n`.
 * - `ok-sse-eof`: the same events unchunked with `connection: close` and no length; the body ends when the server closes.
 * - `ok-json`: `200`, `content-type: application/json`, `content-length`, one `chat.completion` with the joined token text, `finish_reason: "stop"` and usage.
 * - `slow`: as `ok-sse`, but each token chunk is written `delay_ms` after the previous one (head and role chunk at once).
 * - `reset`: closes the connection without a byte of response (the client reads EOF).
 * - `500`: `500`, JSON `{"error":{"message":"fault: internal error","type":"server_error"}}` with `content-length`.
 * - `429`: `429`, `retry-after: 1`, JSON `{"error":{"message":"fault: rate limited","type":"rate_limit_error"}}` with `content-length`.
 * - `malformed-sse`: `200` event-stream, chunked: three events `data: {not json\n\n`, then `data: [DONE]\n\n`, `0\r\n\r\n`.
 * - `cut`: `200` event-stream head (chunked), the role chunk and 2 token chunks, then closes without the `0\r\n\r\n` terminator.
 * - `queued`: sends nothing for `delay_ms` (a request waiting for a free slot of an engine), then the `ok-sse` answer.
 * - `hang`: sends nothing and keeps the connection open until the client closes it.
 * - `hang-headers`: sends the `200` event-stream head (chunked), then nothing until the client closes.
 * - `wrong-content-type`: `200`, `content-type: text/html`, `content-length`, body `<html><body>fault</body></html>`.
 * - `garbage`: the bytes `HELLO THERE\r\n\r\n`, then closes (not an HTTP status line).
 * - `bad-chunk`: `200` event-stream head (chunked), then the chunk-size line `zz\r\n`, then closes.
 *
 * Misshapen answers, each exactly the `ok-sse` stream (chunked, keep-alive) with one event changed
 * or added (see test/support/fault_misshapen.ts; `json-*` modes are `ok-json` bodies with one field changed):
 * - `tool-index-2`: before the finish chunk, a delta `tool_calls: [{index: 2, id, function}]` (no calls before it); finish `tool_calls`.
 * - `tool-index-frac` / `tool-index-neg`: the same with `index: 0.5` / `index: -1`.
 * - `tool-id-number`: the same with `index: 0` and `id: 7`.
 * - `finish-object` / `finish-number`: the finish chunk's `finish_reason` is `{"why":"stop"}` / `7`.
 * - `content-number` / `content-object`: the first token chunk's `content` is `42` / `{"text":"tok0"}`.
 * - `role-number`: the role chunk's `role` is `1`.
 * - `delta-string`: the first token chunk's `delta` is the string `"tok0"`.
 * - `choices-object`: the first token chunk's `choices` is an object (`{"0": ...}`) instead of an array.
 * - `after-done`: after `data: [DONE]`, one more token chunk (`content: "late"`).
 * - `finish-formula`: the finish chunk's `finish_reason` is the string `FORMULA_FINISH`
 *   (`=HYPERLINK(...)`: well-typed, but a formula to a spreadsheet).
 * - `json-finish-object`: an `ok-json` body whose `finish_reason` is `{"why":"stop"}`.
 * - `json-message-string`: an `ok-json` body whose `message` is the string `"tok0"`.
 * - `timeline-bad`: `200` JSON array of three `/sim/timeline` rows stamped now: one valid, one with
 *   `queue_len: -1`, one with `running: "many"` (for a `pick` that sends `/sim/timeline` here).
 *
 * Oversized answers (`OVERSIZED_BYTES` = 9 MiB, one more MiB than the runner's default response cap):
 * - `oversized-json`: `200` JSON with `connection: close` and no length: `{"pad":"` and `x` bytes in
 *   64 KiB writes up to `OVERSIZED_BYTES` body bytes, then `"}` and close (no length to refuse up front).
 * - `oversized-length`: `200` JSON head declaring `content-length: OVERSIZED_BYTES`, then nothing until the client closes.
 * - `endless-sse-line`: `200` event-stream head (chunked), then one SSE line that never ends: `data: ` and 64 KiB
 *   chunks of `x` (no newline), written until the client closes the connection.
 * - `no-usage-one-char`: an `ok-json` answer without `usage` whose content is 16,000 `x` (a text whose byte-pair
 *   encoding takes minutes: the runner's tokenizer must refuse it, not stall).
 *
 * Wire modes (`WIRE_MODES` in test/support/fault_wire.ts, each described there): the ok stream or body
 * changed at the byte level, other statuses and Retry-After values.
 */
export const FAULT_MODES = [
  "ok-sse",
  "ok-sse-eof",
  "ok-json",
  "slow",
  "queued",
  "reset",
  "500",
  "429",
  "malformed-sse",
  "cut",
  "hang",
  "hang-headers",
  "wrong-content-type",
  "garbage",
  "bad-chunk",
  ...MISSHAPEN_SSE,
  "json-finish-object",
  "json-message-string",
  "timeline-bad",
  "oversized-json",
  "oversized-length",
  "endless-sse-line",
  "no-usage-one-char",
  ...Object.keys(WIRE_MODES) as WireMode[],
] as const;
/** One fault mode; see `FAULT_MODES`. */
export type FaultMode = typeof FAULT_MODES[number];

/** A request as the server read it. */
export interface FaultRequest {
  /** 0-based order of arrival over the server's life. */
  index: number;
  /** Wall-clock time (unix ms) the whole request had been read. */
  receivedUnixMs: number;
  method: string;
  /** Path with query. */
  target: string;
  /** Header names lower-cased. */
  headers: Map<string, string>;
  body: string;
}

/** Options of `startFaultServer`. */
export interface FaultServerOptions {
  /** Chooses the mode of a request; `undefined` falls through to header, path and body. */
  pick?: (req: FaultRequest) => FaultMode | undefined;
  /** Token chunks per completion. @default 8 */
  tokens?: number;
  /** Gap between token chunks in `slow`. @default 20 */
  slowDelayMs?: number;
}

/** A running fault server. */
export interface FaultServer {
  /** `http://127.0.0.1:{port}` (no trailing slash). */
  url: string;
  port: number;
  /** Requests answered per mode (a request counts when its mode is chosen). */
  counts: Record<FaultMode, number>;
  /** Every request read, in order. */
  requests: FaultRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Stops listening, closes every connection and waits for the handlers to finish. */
  close(): Promise<void>;
}

const enc = new TextEncoder();
/** Body bytes of the `oversized-*` modes: 9 MiB. */
export const OVERSIZED_BYTES = 9 * 1024 * 1024;
const PAD = enc.encode("x".repeat(64 * 1024));
const isMode = (s: string | undefined): s is FaultMode => FAULT_MODES.includes(s as FaultMode);
const SSE_HEAD = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n";
const CHUNKED_SSE_HEAD = SSE_HEAD + "transfer-encoding: chunked\r\n\r\n";
const chunk = (s: string) => `${enc.encode(s).length.toString(16)}\r\n${s}\r\n`;
const json = (status: string, body: string, extra = "") =>
  `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\n${extra}content-length: ${
    enc.encode(body).length
  }\r\n\r\n${body}`;

/** The bytes of every mode but `slow`, and whether the connection then stays open, closes, or hangs. */
function fixedAnswer(
  mode: Exclude<FaultMode, WireMode>,
  req: FaultRequest,
  tokens: number,
): [string, boolean | "hold"] {
  switch (mode) {
    case "ok-sse":
      return [CHUNKED_SSE_HEAD + sseEvents(req, tokens).map(chunk).join("") + "0\r\n\r\n", true];
    case "ok-sse-eof":
      return [SSE_HEAD + "connection: close\r\n\r\n" + sseEvents(req, tokens).join(""), false];
    case "ok-json":
      return [json("200 OK", chatCompletionJson(req, tokens)), true];
    case "500":
      return [
        json("500 Internal Server Error", `{"error":{"message":"fault: internal error","type":"server_error"}}`),
        true,
      ];
    case "429": {
      const body = `{"error":{"message":"fault: rate limited","type":"rate_limit_error"}}`;
      return [json("429 Too Many Requests", body, "retry-after: 1\r\n"), true];
    }
    case "malformed-sse": {
      const events = [0, 1, 2].map(() => chunk("data: {not json\n\n")).join("") + chunk("data: [DONE]\n\n");
      return [CHUNKED_SSE_HEAD + events + "0\r\n\r\n", true];
    }
    case "cut":
      return [CHUNKED_SSE_HEAD + sseEvents(req, 2).slice(0, 3).map(chunk).join(""), false];
    case "wrong-content-type": {
      const body = "<html><body>fault</body></html>";
      return [`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\n\r\n${body}`, true];
    }
    case "garbage":
      return ["HELLO THERE\r\n\r\n", false];
    case "bad-chunk":
      return [CHUNKED_SSE_HEAD + "zz\r\n", false];
    case "hang-headers":
      return [CHUNKED_SSE_HEAD, "hold"];
    case "hang":
      return ["", "hold"];
    case "json-finish-object":
    case "json-message-string":
      return [json("200 OK", misshapenJson(mode, chatCompletionJson(req, tokens))), true];
    case "timeline-bad":
      return [json("200 OK", JSON.stringify(badTimeline())), true];
    case "no-usage-one-char": {
      const answer = JSON.parse(chatCompletionJson(req, tokens));
      delete answer.usage;
      answer.choices[0].message.content = "x".repeat(16_000);
      return [json("200 OK", JSON.stringify(answer)), true];
    }
    case "reset":
    case "slow":
    case "queued":
    case "oversized-json":
    case "oversized-length":
    case "endless-sse-line":
      return ["", false]; // answered by answer() itself
    default:
      return [CHUNKED_SSE_HEAD + misshapenEvents(mode, sseEvents(req, tokens)).map(chunk).join("") + "0\r\n\r\n", true];
  }
}

/**
 * Starts a fault server on 127.0.0.1 (free port).
 *
 * @example A cut stream is counted
 * ```ts ignore
 * const srv = await startFaultServer();
 * await fetch(`${srv.url}/ok-json/v1/chat/completions`, { method: "POST", body: "{}" }).then((r) => r.text());
 * assert.equal(srv.counts["ok-json"], 1);
 * await srv.close();
 * ```
 */
export function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0, transport: "tcp" });
  const port = listener.addr.port;
  const counts = Object.fromEntries(FAULT_MODES.map((m) => [m, 0])) as Record<FaultMode, number>;
  const requests: FaultRequest[] = [];
  const conns = new Set<Deno.Conn>();
  const handlers = new Set<Promise<void>>();
  const timers = new Set<{ cancel(): void }>();
  let connections = 0;
  let closing = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = { cancel: () => (clearTimeout(id), resolve()) };
      const id = setTimeout(() => (timers.delete(t), resolve()), ms);
      timers.add(t);
    });

  function modeOf(req: FaultRequest): FaultMode {
    const picked = options.pick?.(req);
    if (picked) return picked;
    const header = req.headers.get("x-fault-mode");
    if (isMode(header)) return header;
    const segment = req.target.split("?")[0]!.split("/")[1];
    if (isMode(segment)) return segment;
    return /"stream"\s*:\s*true/.test(req.body) ? "ok-sse" : "ok-json";
  }

  function param(req: FaultRequest, name: string, fallback: number): number {
    const q = new URL(req.target, "http://x").searchParams.get(name) ??
      req.headers.get(`x-fault-${name}`.replace("_", "-"));
    const n = q === null || q === undefined ? NaN : Number(q);
    return Number.isFinite(n) && n >= 0 ? n : fallback;
  }

  /** Answers one request; returns false when the connection must end. */
  async function answer(conn: Deno.Conn, req: FaultRequest): Promise<boolean> {
    const mode = modeOf(req);
    counts[mode]++;
    const tokens = param(req, "tokens", options.tokens ?? 8);
    const write = (s: string) => writeAll(conn, enc.encode(s));
    if (mode === "slow") {
      const events = sseEvents(req, tokens);
      await write(CHUNKED_SSE_HEAD + chunk(events[0]!));
      const delay = param(req, "delay_ms", options.slowDelayMs ?? 20);
      for (let k = 1; k <= tokens; k++) {
        await sleep(delay);
        if (closing) return false;
        await write(chunk(events[k]!));
      }
      await write(events.slice(tokens + 1).map(chunk).join("") + "0\r\n\r\n");
      return true;
    }
    if (mode === "queued") {
      await sleep(param(req, "delay_ms", options.slowDelayMs ?? 20));
      if (closing) return false;
      await write(CHUNKED_SSE_HEAD + sseEvents(req, tokens).map(chunk).join("") + "0\r\n\r\n");
      return true;
    }
    if (mode === "oversized-json") {
      await write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"pad":"');
      for (let sent = 10; sent + PAD.length <= OVERSIZED_BYTES && !closing; sent += PAD.length) {
        await writeAll(conn, PAD);
      }
      await write(`"}`);
      return false;
    }
    if (mode === "oversized-length") {
      await write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${OVERSIZED_BYTES}\r\n\r\n`);
      return await drain(conn);
    }
    if (mode === "endless-sse-line") {
      await write(CHUNKED_SSE_HEAD + chunk("data: "));
      const piece = new Uint8Array([...enc.encode(`${PAD.length.toString(16)}\r\n`), ...PAD, 13, 10]);
      while (!closing) await writeAll(conn, piece);
      return false;
    }
    if (mode in WIRE_MODES) {
      const wire = wireAnswer(mode as WireMode, {
        events: sseEvents(req, tokens),
        body: chatCompletionJson(req, tokens),
      });
      for (const [i, piece] of wire.pieces.entries()) {
        if (i > 0 && wire.gapMs > 0) await sleep(wire.gapMs);
        if (closing) return false;
        await writeAll(conn, typeof piece === "string" ? enc.encode(piece) : piece);
      }
      return wire.keepOpen;
    }
    const [bytes, keepOpen] = fixedAnswer(mode as Exclude<FaultMode, WireMode>, req, tokens);
    if (bytes) await write(bytes);
    return keepOpen === "hold" ? await drain(conn) : keepOpen;
  }

  async function serve(conn: Deno.Conn): Promise<void> {
    const pending = { buf: new Uint8Array(0) };
    try {
      for (;;) {
        const parsed = await readRequest(conn, pending);
        if (parsed === null || closing) return;
        const req: FaultRequest = { index: requests.length, receivedUnixMs: Date.now(), ...parsed };
        requests.push(req);
        if (!(await answer(conn, req))) return;
      }
    } catch (err) {
      // A client that aborts or resets mid-answer is part of the game; anything else is a bug.
      if (!isDisconnect(err)) throw err;
    } finally {
      conns.delete(conn);
      closeQuietly(conn);
    }
  }

  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (err) {
        if (closing) return;
        throw err;
      }
      connections++;
      conns.add(conn);
      const h = serve(conn).finally(() => handlers.delete(h));
      handlers.add(h);
    }
  })();

  return Promise.resolve({
    url: `http://127.0.0.1:${port}`,
    port,
    counts,
    requests,
    get connections() {
      return connections;
    },
    async close() {
      closing = true;
      listener.close();
      for (const t of timers) t.cancel();
      for (const c of conns) closeQuietly(c);
      await accepting;
      await Promise.all([...handlers]);
    },
  });
}

/** Reads one request (head + `content-length` body); null at EOF or on a request it cannot parse. */
async function readRequest(
  conn: Deno.Conn,
  pending: { buf: Uint8Array },
): Promise<Omit<FaultRequest, "index" | "receivedUnixMs"> | null> {
  const chunk = new Uint8Array(16384);
  let headEnd = -1;
  for (;;) {
    const b = pending.buf;
    headEnd = findCrlfCrlf(b);
    if (headEnd !== -1) {
      const head = new TextDecoder().decode(b.subarray(0, headEnd)).split("\r\n");
      const [method, target] = head[0]!.split(" ");
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const length = Number(headers.get("content-length") ?? "0");
      if (!method || !target || !Number.isInteger(length) || length < 0) return null;
      if (b.length >= headEnd + 4 + length) {
        const body = new TextDecoder().decode(b.subarray(headEnd + 4, headEnd + 4 + length));
        pending.buf = b.slice(headEnd + 4 + length);
        return { method, target, headers, body };
      }
    }
    const n = await conn.read(chunk);
    if (n === null) return null;
    const grown = new Uint8Array(b.length + n);
    grown.set(b);
    grown.set(chunk.subarray(0, n), b.length);
    pending.buf = grown;
  }
}

function findCrlfCrlf(b: Uint8Array): number {
  for (let i = b.indexOf(13); i !== -1 && i + 3 < b.length; i = b.indexOf(13, i + 1)) {
    if (b[i + 1] === 10 && b[i + 2] === 13 && b[i + 3] === 10) return i;
  }
  return -1;
}

/** The OpenAI stream events: role, one per token, finish, usage, `[DONE]`; each `data: ...\n\n`. */
function sseEvents(req: FaultRequest, tokens: number): string[] {
  const { model, promptTokens } = requestFacts(req);
  const base = { id: "chatcmpl-fault", object: "chat.completion.chunk", created: 0, model };
  const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  const choice = (delta: unknown, finish: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const out = [ev(choice({ role: "assistant", content: "" }, null))];
  for (let i = 0; i < tokens; i++) out.push(ev(choice({ content: `tok${i} ` }, null)));
  out.push(ev(choice({}, "stop")));
  out.push(ev({ ...base, choices: [], usage: usage(promptTokens, tokens) }));
  out.push("data: [DONE]\n\n");
  return out;
}

function chatCompletionJson(req: FaultRequest, tokens: number): string {
  const { model, promptTokens } = requestFacts(req);
  const content = Array.from({ length: tokens }, (_, i) => `tok${i} `).join("");
  return JSON.stringify({
    id: "chatcmpl-fault",
    object: "chat.completion",
    created: 0,
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: usage(promptTokens, tokens),
  });
}

function usage(prompt: number, completion: number) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The model named in the request and the word count of its message contents. */
function requestFacts(req: FaultRequest): { model: string; promptTokens: number } {
  let parsed: { model?: unknown; messages?: { content?: unknown }[] };
  try {
    parsed = JSON.parse(req.body);
  } catch {
    return { model: "fault-model", promptTokens: 0 };
  }
  let words = 0;
  for (const m of Array.isArray(parsed?.messages) ? parsed.messages : []) {
    const parts = typeof m?.content === "string" ? [m.content] : Array.isArray(m?.content) ? m.content : [];
    for (const p of parts) {
      const text = typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "";
      words += text.split(/\s+/).filter((w: string) => w.length > 0).length;
    }
  }
  return { model: typeof parsed?.model === "string" ? parsed.model : "fault-model", promptTokens: words };
}

/** Reads until the peer closes (hang modes); always ends the connection. */
async function drain(conn: Deno.Conn): Promise<false> {
  const buf = new Uint8Array(1024);
  while ((await conn.read(buf)) !== null) {
    // Discard: a hanging server ignores whatever else arrives.
  }
  return false;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

function isDisconnect(err: unknown): boolean {
  return err instanceof Deno.errors.BadResource || err instanceof Deno.errors.ConnectionReset ||
    err instanceof Deno.errors.BrokenPipe || err instanceof Deno.errors.Interrupted ||
    err instanceof Deno.errors.NotConnected || err instanceof Deno.errors.UnexpectedEof;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch (err) {
    if (!(err instanceof Deno.errors.BadResource)) throw err;
  }
}
