/**
 * The runner's HTTP layer: one `HttpClient` interface, several transports, and the SSE decoder.
 * `raw` (HTTP/1.1 over `Deno.connect`, the default: fastest by measurement, see bench/README.md)
 * and `fetch` (Deno's fetch; `https:` capable). The raw client hands `https:` URLs to fetch.
 *
 * @example Send one streamed request and decode its events
 * ```ts ignore
 * import { createHttpClient, SseDecoder } from "./mod.ts";
 * import { startClock } from "../clock.ts";
 * const client = createHttpClient("raw", { clock: startClock() });
 * const sse = new SseDecoder();
 * const outcome = await client.send(
 *   { url: new URL("http://127.0.0.1:8080/v1/chat/completions"), headers: {}, body: "{}" },
 *   { onHeaders() {}, onData: (piece) => console.log(sse.push(piece)) },
 * );
 * await client.close();
 * ```
 * @module
 */
import type { HttpClient, HttpClientOptions } from "./client.ts";
import { FetchHttpClient } from "./fetch_client.ts";
import { RawHttpClient } from "./raw_client.ts";

export * from "./client.ts";
export * from "./sse.ts";
export { RawHttpClient, type RawHttpClientOptions } from "./raw_client.ts";
export { FetchHttpClient } from "./fetch_client.ts";

/** The transports `createHttpClient` can build. */
export const HTTP_CLIENT_KINDS = ["raw", "fetch"] as const;
/** One transport name. */
export type HttpClientKind = typeof HTTP_CLIENT_KINDS[number];

/** The transport used when none is asked for: the one that measured fastest (bench/README.md). */
export const DEFAULT_HTTP_CLIENT: HttpClientKind = "raw";

/**
 * Builds a client of the given transport.
 *
 * @example The default transport
 * ```ts
 * import { createHttpClient, DEFAULT_HTTP_CLIENT } from "./mod.ts";
 * import { startClock } from "../clock.ts";
 * import assert from "node:assert/strict";
 * const client = createHttpClient(DEFAULT_HTTP_CLIENT, { clock: startClock() });
 * assert.equal(client.name, "raw");
 * await client.close();
 * ```
 */
export function createHttpClient(kind: HttpClientKind, options: HttpClientOptions): HttpClient {
  switch (kind) {
    case "raw":
      return new RawHttpClient(options);
    case "fetch":
      return new FetchHttpClient(options);
    default:
      throw new TypeError(`unknown HTTP client kind ${JSON.stringify(kind)}; expected one of ${HTTP_CLIENT_KINDS}`);
  }
}
