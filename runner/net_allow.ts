/**
 * The hosts a run may reach: each route's target (`--target`, a routes file's `url`, a `--route-url` override) and
 * the proxy that applies to it (runner/net_proxy.ts), as `host:port`. Built before ms 0 from the checked URLs; every
 * request of the run's HTTP clients is checked against it (a request to another host is a runner bug, refused with
 * {@linkcode NetAllowError}), the workers of `--workers` get exactly it as `--allow-net`, and run.json `net_allow`
 * records it. docs/reach.md.
 *
 * @module
 */
import type { HttpClient, HttpOutcome, HttpRequest, ResponseHandler } from "./http/client.ts";

/** A request of the run went to a host outside its allow-list: a bug of the runner, never the target's doing. */
export class NetAllowError extends Error {
  /** The `host:port` refused. */
  readonly host: string;
  constructor(host: string, allowed: readonly string[]) {
    super(`refused a request to ${host}: not one of the run's targets or their proxies (${allowed.join(", ")})`);
    this.name = "NetAllowError";
    this.host = host;
  }
}

/**
 * `host:port` of a URL, the port written out (80 for http, 443 for https), IPv6 in brackets: the form of
 * `--allow-net` and of run.json `net_allow`.
 *
 * @example
 * ```ts
 * import { hostPort } from "./net_allow.ts";
 * import assert from "node:assert/strict";
 * assert.equal(hostPort(new URL("https://api.example.com/v1")), "api.example.com:443");
 * assert.equal(hostPort(new URL("http://[::1]:8787/")), "[::1]:8787");
 * ```
 */
export function hostPort(url: URL): string {
  const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
  return `${url.hostname}:${port}`;
}

/**
 * The run's allow-list: a set of `host:port`.
 *
 * @example Targets and a proxy
 * ```ts
 * import { NetAllowList } from "./net_allow.ts";
 * import assert from "node:assert/strict";
 * const allow = new NetAllowList([new URL("http://127.0.0.2:8787/v1/chat/completions")], ["127.0.0.1:3128"]);
 * assert.deepEqual(allow.hosts, ["127.0.0.1:3128", "127.0.0.2:8787"]);
 * assert.ok(allow.allows(new URL("http://127.0.0.2:8787/v1/models")));
 * assert.throws(() => allow.check(new URL("http://127.0.0.3:8787/")), /refused a request to 127\.0\.0\.3:8787/);
 * ```
 */
export class NetAllowList {
  /** Every `host:port`, sorted. */
  readonly hosts: readonly string[];
  readonly #set: ReadonlySet<string>;

  constructor(targets: Iterable<URL>, proxies: Iterable<string> = []) {
    this.#set = new Set([...[...targets].map(hostPort), ...proxies]);
    this.hosts = [...this.#set].sort();
  }

  /** Whether `url`'s host and port are in the list. */
  allows(url: URL): boolean {
    return this.#set.has(hostPort(url));
  }

  /** Throws {@linkcode NetAllowError} when `url`'s host and port are not in the list. */
  check(url: URL): void {
    if (!this.allows(url)) throw new NetAllowError(hostPort(url), this.hosts);
  }
}

/**
 * `client` with every request and pre-connection checked against `allow` first. A request to another host rejects
 * with {@linkcode NetAllowError} — the one rejection of `send` (an HttpClient's `send` otherwise never rejects):
 * the request's row is then a runner error naming the host (runner/request_guard.ts), not a call anywhere.
 */
export function guardClient(client: HttpClient, allow: NetAllowList): HttpClient {
  return {
    name: client.name,
    send(req: HttpRequest, handler: ResponseHandler): Promise<HttpOutcome> {
      try {
        allow.check(req.url);
      } catch (e) {
        return Promise.reject(e);
      }
      return client.send(req, handler);
    },
    ...(client.preconnect
      ? {
        async preconnect(url: URL, n: number): Promise<number> {
          allow.check(url);
          return await client.preconnect!(url, n);
        },
      }
      : {}),
    close: () => client.close(),
  };
}
