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
  /** A piece of the (de-chunked) body. */
  onData(chunk: Uint8Array, tMs: number): void;
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

/** An HTTP/1.1 client for the runner. `send` never rejects. */
export interface HttpClient {
  readonly name: string;
  send(req: HttpRequest, handler: ResponseHandler): Promise<HttpOutcome>;
  /** Opens up to `n` keep-alive connections to `url`'s host before the run, where the transport pools them. */
  preconnect?(url: URL, n: number): Promise<void>;
  close(): Promise<void>;
}

export interface HttpClientOptions {
  clock: Clock;
  /** Most connections kept per host. @default 4096 */
  maxConnectionsPerHost?: number;
}
