import type { Clock } from "../clock.ts";

/** One HTTP POST of the runner. */
export interface HttpRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Aborts the attempt (timeouts, run stop); the result is then `aborted` or `timeout` as the caller decides. */
  signal?: AbortSignal;
}

/** Receives a response as it arrives; every time is on the run clock. */
export interface ResponseHandler {
  /** Status line and headers have arrived (lower-case header names). */
  onHeaders(status: number, headers: Map<string, string>, tMs: number): void;
  /**
   * A piece of the (de-chunked) body, valid only during the call: the raw client hands a view of its connection's read
   * buffer, which the next read overwrites, so a handler that keeps bytes copies them.
   */
  onData(chunk: Uint8Array, tMs: number): void;
  /**
   * The request's first byte went to the socket, at `tMs`: called once, before `onHeaders`, and never for an exchange
   * that wrote nothing (no connection, aborted first). `raw`: the instant its first `write` call returned (Deno writes
   * at once when the socket can take the bytes, so they are in the kernel by then). `fetch` exposes no such instant: the
   * instant the request was handed to `fetch`, reported once its answer's head came (a call that failed before any
   * answer reports none: nothing shows whether it wrote).
   */
  onSent?(tMs: number): void;
}

/** How a transport failure is named in `error_kind`. */
export type TransportErrorKind =
  | "connect_refused"
  | "connect_error"
  | "connection_reset"
  | "stream_cut"
  | "protocol_error"
  | "aborted";

/** The end of one HTTP exchange: never an exception. */
export type HttpOutcome =
  | { ok: true; endMs: number }
  | { ok: false; endMs: number; kind: TransportErrorKind; message: string };

/**
 * An HTTP/1.1 client for the runner. `send` never rejects.
 *
 * Both clients (`raw`, `fetch`) keep the same rules, so a run measures the same calls with either:
 * - **One call per attempt.** A request is sent again by the client only when its pooled connection
 *   failed before one byte of it was written (nothing reached the server); once a byte is written,
 *   a failure is the attempt's outcome and only the retry policy sends again, as its own attempt.
 *   The one exception is fetch's (hyper's): when a reused connection closes after the request was
 *   written and before any answer byte, fetch sends it once more on a fresh connection, unseen
 *   (measured in test/runner/http/client_reuse_test.ts); with `fetch` such a race can give the
 *   server one call more than there are attempt rows. Both clients close connections idle for
 *   longer than `idleTimeoutMs` (4 s), before common servers' keep-alive timeouts (5 s and more).
 * - **No answer to the wrong request.** A keep-alive connection is reused only after a response read
 *   exactly to the end of its framing (`content-length` or the last chunk) with nothing beyond it
 *   and not aborted; a pooled connection on which anything arrived while idle (bytes or its end) is
 *   discarded before it carries a request.
 * - **No redirects followed**: a 3xx is the attempt's answer (`http_error`, `http_3xx`).
 * - **No body decoding**: `accept-encoding: identity` is sent; a body the server encodes anyway is
 *   delivered as sent (attempt.ts refuses a 2xx with a `content-encoding`).
 * - **One name per failure.** A body that fails after the head — cut, or its chunked framing broken (a bad chunk
 *   size, a chunk cut short, no last chunk) — is `stream_cut` in both: fetch reports all of these with one message, so
 *   the raw client does not name them finer (test/runner/http/chunk_framing_test.ts). A broken head is `protocol_error`.
 */
export interface HttpClient {
  readonly name: string;
  send(req: HttpRequest, handler: ResponseHandler): Promise<HttpOutcome>;
  /**
   * Opens `n` keep-alive connections to `url`'s host before the run, where the transport pools them; resolves to the
   * number opened (0 where this transport does not pool for `url`). Rejects with a {@linkcode PreconnectError} when some
   * connects failed: the ones that opened stay pooled, and the error counts them.
   */
  preconnect?(url: URL, n: number): Promise<number>;
  close(): Promise<void>;
}

/** Some of a preconnect's connects failed; `opened` connections did open and are pooled. */
export class PreconnectError extends Error {
  constructor(readonly opened: number, asked: number, cause: unknown) {
    super(`${asked - opened} of ${asked} connects failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "PreconnectError";
  }
}

/** Idle keep-alive connections older than this are closed, not reused, by both clients (servers drop idle ones). */
export const DEFAULT_IDLE_TIMEOUT_MS = 4000;

/**
 * Told of each read of an answer a client has handled (a socket read of the raw client, a body chunk of fetch), with
 * the clock's reading at it: the open-loop dispatcher (runner/dispatch.ts) starts the requests due by then in a turn
 * the event loop is awake for anyway, instead of polling for them. One per run, shared by its routes' clients; `fn` is
 * set while the dispatcher runs.
 */
export class ReadHook {
  fn: ((nowMs: number) => void) | null = null;
}

export interface HttpClientOptions {
  clock: Clock;
  /** Told of each read of an answer the client has handled. */
  reads?: ReadHook;
  /** Most connections kept per host. @default 4096 */
  maxConnectionsPerHost?: number;
  /** Idle keep-alive connections older than this are closed instead of reused. @default DEFAULT_IDLE_TIMEOUT_MS */
  idleTimeoutMs?: number;
}
