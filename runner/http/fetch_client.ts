import type { Clock } from "../clock.ts";
import type { HttpClient, HttpClientOptions, HttpOutcome, HttpRequest, ReadHook, ResponseHandler } from "./client.ts";
import { DEFAULT_IDLE_TIMEOUT_MS } from "./client.ts";
import { failure, messageOf } from "./transport_error.ts";
import type { TransportErrorKind } from "./client.ts";

const IDENTITY = "identity";

/**
 * The runner's client over Deno's `fetch` (hyper underneath): `https:` capable, body streamed
 * through a reader. Pooling is fetch's own (`maxConnectionsPerHost` bounds idle connections
 * kept, not open ones). Errors are named from fetch's messages, which carry the cause.
 *
 * Made to behave as the raw client (client.ts, "Both clients"): redirects are not followed (a
 * 3xx is returned as the answer) and `accept-encoding: identity` is sent, so fetch decodes no
 * body (it decompresses only what it asked for).
 */
export class FetchHttpClient implements HttpClient {
  readonly name = "fetch";
  readonly #clock: Clock;
  readonly #reads: ReadHook | undefined;
  readonly #client: Deno.HttpClient;

  constructor(options: HttpClientOptions) {
    this.#clock = options.clock;
    this.#reads = options.reads;
    this.#client = Deno.createHttpClient({
      poolMaxIdlePerHost: options.maxConnectionsPerHost ?? 4096,
      poolIdleTimeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
  }

  async send(req: HttpRequest, handler: ResponseHandler): Promise<HttpOutcome> {
    const clock = this.#clock;
    const signal = req.signal;
    if (signal?.aborted) return failure("aborted", clock.now(), signal.reason);
    let res: Response;
    let handed = 0;
    try {
      const headers = new Headers(req.headers);
      headers.set("accept-encoding", IDENTITY);
      // fetch tells nothing between this call and the answer's head: the request is taken as sent when handed over.
      handed = clock.now();
      res = await fetch(req.url, {
        method: "POST",
        headers,
        body: req.body,
        signal: signal ?? null,
        client: this.#client,
        redirect: "manual",
      });
    } catch (err) {
      return failure(signal?.aborted ? "aborted" : fetchErrorKind(err, false), clock.now(), err);
    }
    let step = "headers";
    try {
      // Only an answer proves the request left (a failed connect wrote nothing).
      handler.onSent?.(handed);
      const headers = new Map<string, string>();
      for (const [k, v] of res.headers) headers.set(k, v);
      handler.onHeaders(res.status, headers, clock.now());
      step = "body";
      if (res.body) {
        const reader = res.body.getReader();
        for (;;) {
          const r = await reader.read();
          if (r.done) break;
          step = "handler";
          const t = clock.now();
          handler.onData(r.value, t);
          step = "body";
          this.#reads?.fn?.(t);
        }
      }
      return { ok: true, endMs: clock.now() };
    } catch (err) {
      const t = clock.now();
      if (step !== "body") {
        await res.body?.cancel().catch(() => undefined); // the handler failed; the stream error is moot
        return failure("protocol_error", t, new Error(`response handler threw: ${messageOf(err)}`));
      }
      return failure(signal?.aborted ? "aborted" : fetchErrorKind(err, true), t, err);
    }
  }

  close(): Promise<void> {
    this.#client.close();
    return Promise.resolve();
  }
}

/** Names a fetch failure from its message chain; `afterHead` tells reset from cut. */
function fetchErrorKind(err: unknown, afterHead: boolean): TransportErrorKind {
  const msg = messageOf(err);
  if (err instanceof DOMException && err.name === "AbortError") return "aborted";
  if (!afterHead) {
    if (/connection refused|os error 111|ConnectionRefused/i.test(msg)) return "connect_refused";
    // "client error (Connect)": hyper could not open the connection, e.g. a TLS certificate not trusted.
    if (/tcp connect error|dns error|connect error|timed out|client error \(Connect\)|certificate/i.test(msg)) {
      return "connect_error";
    }
  }
  // After the head every body failure is `stream_cut`: fetch says "error reading a body from connection" alike for a
  // bad chunk size, a chunk cut short and a missing last chunk, and the raw client names them the same (transport_error.ts).
  if (afterHead) return "stream_cut";
  if (/invalid (HTTP|chunk|header|status)|parse error|invalid response|header (name|value)/i.test(msg)) {
    return "protocol_error";
  }
  return "connection_reset";
}
