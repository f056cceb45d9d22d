import type { Clock } from "../clock.ts";
import type { HttpClient, HttpClientOptions, HttpOutcome, HttpRequest, ReadHook, ResponseHandler } from "./client.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, PreconnectError } from "./client.ts";
import { watchAbort } from "./abort_watch.ts";
import { HostPool, type RawConnection } from "./connection_pool.ts";
import { FetchHttpClient } from "./fetch_client.ts";
import { ResponseParser, type ResponseSink } from "./response_parser.ts";
import { classifyError, failure, messageOf } from "./transport_error.ts";

/** Options of the raw client beyond the shared ones. */
export interface RawHttpClientOptions extends HttpClientOptions {
  /** Read buffer per connection. @default 16384 */
  readBufferBytes?: number;
  /** Opens one TCP connection (tests give their own). @default Deno.connect */
  connect?: (o: Deno.ConnectOptions) => Promise<Deno.TcpConn>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\r\n\0]/;
const OWN_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "accept-encoding"]);
const encoder = new TextEncoder();
/** Marks an exchange whose pooled connection failed before one byte of the request was written. */
const NOT_SENT = Symbol("not sent");

/**
 * HTTP/1.1 over `Deno.connect` with per-host keep-alive pools: the request goes out in one
 * write, the response is parsed incrementally and body pieces reach the handler as they are
 * read (de-chunked, one piece per socket read). `https:` URLs are delegated to a fetch client.
 *
 * Connection reuse (the rules of both clients, see client.ts): a connection returns to the pool
 * only after a response read exactly to the end of its framing with no byte beyond it; a pooled
 * connection is probed before it carries a request and discarded when anything (bytes, EOF) came
 * while it sat idle. The request is sent again, on a fresh connection, only when its pooled
 * connection failed before one byte of it was written; a failure after that is the attempt's
 * outcome (`connection_reset`), left to the retry policy, which makes its own attempt row.
 */
export class RawHttpClient implements HttpClient {
  readonly name = "raw";
  readonly #clock: Clock;
  readonly #pools = new Map<string, HostPool>();
  readonly #max: number;
  readonly #idleTimeoutMs: number;
  readonly #bufferBytes: number;
  readonly #reads: ReadHook | undefined;
  #fetch: FetchHttpClient | undefined;
  #options: RawHttpClientOptions;
  #closed = false;

  constructor(options: RawHttpClientOptions) {
    this.#options = options;
    this.#clock = options.clock;
    this.#max = options.maxConnectionsPerHost ?? 4096;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#bufferBytes = options.readBufferBytes ?? 16384;
    this.#reads = options.reads;
  }

  /** Connections opened so far, over all hosts (keep-alive reuse keeps this low). */
  get connectionsOpened(): number {
    let n = 0;
    for (const p of this.#pools.values()) n += p.opened;
    return n;
  }

  async send(req: HttpRequest, handler: ResponseHandler): Promise<HttpOutcome> {
    const url = req.url;
    if (url.protocol !== "http:") {
      if (url.protocol === "https:") return (this.#fetch ??= new FetchHttpClient(this.#options)).send(req, handler);
      return failure("protocol_error", this.#clock.now(), new TypeError(`unsupported URL scheme ${url.protocol}`));
    }
    const signal = req.signal;
    if (signal?.aborted) return failure("aborted", this.#clock.now(), signal.reason);
    if (this.#closed) return failure("aborted", this.#clock.now(), new Error("HTTP client closed"));
    let bytes: Uint8Array;
    let pool: HostPool;
    try {
      bytes = encodeRequest(req);
      pool = this.#pool(url);
    } catch (err) {
      return failure("protocol_error", this.#clock.now(), err);
    }
    let c: RawConnection;
    try {
      c = await this.#clean(pool, pool.takeIdle() ?? await pool.acquire(signal), signal);
    } catch (err) {
      return this.#connectFailure(err, signal);
    }
    const out = await this.#exchange(pool, c, { bytes, handler, signal });
    if (out !== NOT_SENT) return out;
    // Not one byte of the request left on the pooled connection: it goes once more, on a fresh one.
    try {
      c = await pool.replace(c, signal);
    } catch (err) {
      return this.#connectFailure(err, signal);
    }
    return await this.#exchange(pool, c, { bytes, handler, signal }) as HttpOutcome;
  }

  /**
   * Opens `n` connections to `url`'s host, at most the pool's cap (more would wait for a release that never comes),
   * and leaves them idle in its pool; resolves to the number opened, 0 for an `https:` URL (fetch's own pool). When
   * some connects fail, the others stay pooled and a {@linkcode PreconnectError} counts them.
   */
  async preconnect(url: URL, n: number): Promise<number> {
    if (url.protocol !== "http:") return 0;
    const pool = this.#pool(url);
    const asked = Math.min(n, this.#max);
    const settled = await Promise.allSettled(Array.from({ length: asked }, () => pool.acquire(undefined)));
    let opened = 0;
    let failure: unknown = null;
    for (const s of settled) {
      if (s.status === "fulfilled") {
        pool.release(s.value);
        opened++;
      } else failure ??= s.reason;
    }
    if (opened < asked) throw new PreconnectError(opened, asked, failure);
    return opened;
  }

  close(): Promise<void> {
    this.#closed = true;
    for (const p of this.#pools.values()) p.close();
    this.#pools.clear();
    return this.#fetch?.close() ?? Promise.resolve();
  }

  /** `c`, or when it is a pooled connection that fails its probe, another idle one or a fresh one in its slot. */
  async #clean(pool: HostPool, c: RawConnection, signal: AbortSignal | undefined): Promise<RawConnection> {
    while (c.pooled && !(await c.probe())) {
      const next = pool.takeIdle();
      if (next) {
        pool.discard(c);
        c = next;
      } else {
        c = await pool.replace(c, signal);
      }
    }
    return c;
  }

  #connectFailure(err: unknown, signal: AbortSignal | undefined): HttpOutcome {
    if (signal?.aborted) return failure("aborted", this.#clock.now(), signal.reason);
    return failure(classifyError(err, "connect"), this.#clock.now(), err);
  }

  #pool(url: URL): HostPool {
    let p = this.#pools.get(url.host);
    if (!p) {
      const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
      p = new HostPool({
        hostname,
        port: url.port === "" ? 80 : Number(url.port),
        maxConnections: this.#max,
        idleTimeoutMs: this.#idleTimeoutMs,
        bufferBytes: this.#bufferBytes,
        ...(this.#options.connect ? { connect: this.#options.connect } : {}),
      });
      this.#pools.set(url.host, p);
    }
    return p;
  }

  /**
   * One request/response on `c`. NOT_SENT when `c` had been pooled and its first write failed: no byte
   * of the request was sent, so the caller may send it on a fresh connection (the only resend).
   * `c` goes back to the pool only after a response read to the end of its framing with no byte
   * beyond it, not aborted, and not marked `connection: close`; otherwise it is closed.
   */
  async #exchange(
    pool: HostPool,
    c: RawConnection,
    request: { bytes: Uint8Array; handler: ResponseHandler; signal: AbortSignal | undefined },
  ): Promise<HttpOutcome | typeof NOT_SENT> {
    const { bytes, handler, signal } = request;
    const clock = this.#clock;
    c.uses++;
    const sink = new BodySink(handler);
    const parser = new ResponseParser(sink);
    let aborted = false;
    const unwatch = signal && watchAbort(signal, () => {
      aborted = true;
      c.close();
    });
    let written = 0;
    try {
      // Deno writes at once when the socket can take the bytes: the first call's return is the first byte's instant.
      const first = c.conn.write(bytes);
      const sentMs = clock.now();
      written = await first;
      handler.onSent?.(sentMs);
      while (written < bytes.length) written += await c.conn.write(bytes.subarray(written));
      for (;;) {
        const n = await c.read();
        const t = clock.now();
        if (n === null) {
          if (parser.eof()) {
            pool.discard(c);
            return { ok: true, endMs: t };
          }
          pool.discard(c);
          if (aborted) return failure("aborted", t, signal!.reason);
          if (!parser.sawHead) {
            return failure("connection_reset", t, new Error("connection closed before the response head"));
          }
          return failure("stream_cut", t, new Error("connection closed before the body ended"));
        }
        sink.t = t;
        const used = parser.feed(c.buf, 0, n);
        sink.flush(c.buf);
        if (parser.done) {
          if (used === n && parser.keepAlive && !aborted) pool.release(c);
          else pool.discard(c);
          this.#reads?.fn?.(t);
          return { ok: true, endMs: t };
        }
        this.#reads?.fn?.(t);
      }
    } catch (err) {
      const t = clock.now();
      if (!aborted && !this.#closed && written === 0 && c.pooled) return NOT_SENT; // caller replaces c
      pool.discard(c);
      if (aborted) return failure("aborted", t, signal!.reason);
      if (this.#closed) return failure("aborted", t, new Error("HTTP client closed"));
      const kind = sink.threw ? "protocol_error" : classifyError(err, parser.sawHead ? "body" : "request");
      return failure(kind, t, sink.threw ? new Error(`response handler threw: ${messageOf(err)}`) : err);
    } finally {
      unwatch?.();
    }
  }
}

/**
 * Gathers the body bytes of one socket read and hands them to the handler as one piece. The
 * parser is done with bytes before the current one, so chunk bodies are moved together in
 * place (memmove) as they are found and handed over as a view of the read buffer: no allocation
 * per chunk or per read (the handler copies what it keeps, client.ts).
 */
class BodySink implements ResponseSink {
  t = 0;
  threw = false;
  readonly #handler: ResponseHandler;
  /** Start of this read's gathered body bytes in the read buffer, -1 when none. */
  #from = -1;
  #to = 0;

  constructor(handler: ResponseHandler) {
    this.#handler = handler;
  }

  head(status: number, headers: Map<string, string>): void {
    this.#guard(() => this.#handler.onHeaders(status, headers, this.t));
  }

  body(buf: Uint8Array, start: number, end: number): void {
    if (end <= start) return;
    if (this.#from === -1) this.#from = this.#to = start;
    else if (start !== this.#to) buf.copyWithin(this.#to, start, end);
    this.#to += end - start;
  }

  /** Delivers this read's body bytes as one piece: a view, valid until the next read into `buf`. */
  flush(buf: Uint8Array): void {
    if (this.#from === -1) return;
    const piece = buf.subarray(this.#from, this.#to);
    this.#from = -1;
    this.#guard(() => this.#handler.onData(piece, this.t));
  }

  #guard(call: () => void): void {
    try {
      call();
    } catch (err) {
      this.threw = true;
      throw err;
    }
  }
}

/**
 * Encoded bodies by body text: a case sends the same body string on a route every time (runner/request_flow.ts keeps
 * one per case and route), so it is encoded once, not per request. Emptied when it would pass 256 bodies or 16 MiB.
 */
const bodyBytes = new Map<string, Uint8Array>();
let bodyCacheBytes = 0;

/** The request head and body as one buffer, so the request leaves in one write. */
function encodeRequest(req: HttpRequest): Uint8Array {
  const url = req.url;
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\naccept-encoding: identity\r\n`;
  for (const name in req.headers) {
    const value = req.headers[name]!;
    if (!TOKEN.test(name)) throw new TypeError(`invalid request header name ${JSON.stringify(name)}`);
    if (BAD_VALUE.test(value)) throw new TypeError(`invalid value of request header ${name}`);
    if (OWN_HEADERS.has(name.toLowerCase())) continue;
    head += `${name}: ${value}\r\n`;
  }
  let body = bodyBytes.get(req.body);
  if (body === undefined) {
    body = encoder.encode(req.body);
    if (bodyBytes.size >= 256 || bodyCacheBytes + body.length > 16 * 1024 * 1024) {
      bodyBytes.clear();
      bodyCacheBytes = 0;
    }
    bodyBytes.set(req.body, body);
    bodyCacheBytes += body.length;
  }
  head += `content-length: ${body.length}\r\n\r\n`;
  const headBytes = encoder.encode(head);
  const out = new Uint8Array(headBytes.length + body.length);
  out.set(headBytes);
  out.set(body, headBytes.length);
  return out;
}
