/**
 * Which proxy Deno's `fetch` sends a URL through, read from the environment by the same rules Deno follows (its
 * ext/fetch/proxy.rs, checked against Deno 2.9 in test/runner/net_proxy_test.ts), so that run.json can say which proxy
 * each route went through and the run may reach it.
 *
 * The rules, in order:
 * - `NO_PROXY` (or `no_proxy` when `NO_PROXY` is unset; an empty `NO_PROXY` is a list of nothing) lists exceptions,
 *   comma-separated: an IP address or CIDR block matches an IP host inside it; any other entry is a domain matching
 *   itself and its subdomains (`example.com` and `.example.com` alike). `*` matches every host name but no IP
 *   address; a `host:port` entry matches nothing. A host it matches goes direct.
 * - Otherwise the first that applies of `ALL_PROXY` (any scheme), `HTTPS_PROXY` (https URLs), `HTTP_PROXY` (http URLs);
 *   each upper-case name first, its lower-case name when the upper-case one is unset or unusable (empty, an unknown
 *   scheme, credentials without `:`). `HTTP_PROXY`/`http_proxy` are ignored when `REQUEST_METHOD` is set (a CGI
 *   context, where a request's `Proxy:` header would become `HTTP_PROXY`).
 * - Loopback is not exempt: `127.0.0.1` and `localhost` go through the proxy unless `NO_PROXY` names them.
 *
 * The raw client (runner/http/raw_client.ts) connects by itself and honours none of this: a route a proxy applies to
 * is sent by the fetch client (runner/resolve_routes.ts).
 *
 * @module
 */

/** The variables, in the order Deno reads them. */
const PROXY_VARS = [
  { names: ["ALL_PROXY", "all_proxy"], schemes: ["http:", "https:"] },
  { names: ["HTTPS_PROXY", "https_proxy"], schemes: ["https:"] },
  { names: ["HTTP_PROXY", "http_proxy"], schemes: ["http:"] },
] as const;

const PROXY_SCHEMES: Record<string, number> = { "http:": 80, "https:": 443, "socks5:": 1080, "socks5h:": 1080 };

/** The proxy a URL goes through, as run.json `targets[].proxy` records it. */
export interface RouteProxy {
  /** The proxy as `scheme://host:port`: credentials, path and query left out. */
  url: string;
  /** The variable that set it (e.g. `HTTPS_PROXY`, `http_proxy`). */
  env: string;
  /** `host:port` the run connects to (run.json `net_allow`). */
  hostPort: string;
}

/** Reads one environment variable (`Deno.env.get` by default); undefined when unset. */
export type EnvReader = (name: string) => string | undefined;

/**
 * The proxy Deno's `fetch` would send `url` through, or null when it goes direct.
 *
 * @example A target on loopback goes through HTTP_PROXY unless NO_PROXY names it
 * ```ts
 * import { proxyFor } from "./net_proxy.ts";
 * import assert from "node:assert/strict";
 * const env = (vars: Record<string, string>) => (n: string) => vars[n];
 * const u = new URL("http://127.0.0.2:8787/v1/chat/completions");
 * assert.deepEqual(proxyFor(u, env({ HTTP_PROXY: "http://user:pw@127.0.0.1:3128" })), {
 *   url: "http://127.0.0.1:3128", env: "HTTP_PROXY", hostPort: "127.0.0.1:3128",
 * });
 * assert.equal(proxyFor(u, env({ HTTP_PROXY: "127.0.0.1:3128", NO_PROXY: "127.0.0.0/8" })), null);
 * ```
 */
export function proxyFor(url: URL, env: EnvReader = (n) => Deno.env.get(n)): RouteProxy | null {
  const noProxy = env("NO_PROXY") ?? env("no_proxy");
  if (noProxy && noProxyMatches(noProxy, url.hostname)) return null;
  const cgi = env("REQUEST_METHOD") !== undefined;
  for (const v of PROXY_VARS) {
    if (cgi && v.names[0] === "HTTP_PROXY") continue;
    let found: RouteProxy | null = null;
    for (const name of v.names) {
      const value = env(name);
      found = value === undefined ? null : parseProxy(value, name);
      if (found) break;
    }
    // Deno takes the first variable set for any scheme, then skips it when the URL's scheme is not its own.
    if (found && (v.schemes as readonly string[]).includes(url.protocol)) return found;
  }
  return null;
}

/** A proxy variable's value as Deno reads it, or null when Deno would ignore it. */
function parseProxy(value: string, env: string): RouteProxy | null {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? value : `http://${value}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    return null;
  }
  const defaultPort = PROXY_SCHEMES[u.protocol];
  if (defaultPort === undefined || u.hostname === "") return null;
  // Credentials without a password separator make Deno drop the variable.
  const authority = withScheme.slice(withScheme.indexOf("//") + 2).split(/[/?#]/)[0]!;
  const at = authority.lastIndexOf("@");
  if (at >= 0 && !authority.slice(0, at).includes(":")) return null;
  const port = u.port === "" ? String(defaultPort) : u.port;
  return { url: `${u.protocol}//${u.hostname}:${port}`, env, hostPort: `${u.hostname}:${port}` };
}

/** Whether a NO_PROXY list exempts `hostname` (a URL's hostname: IPv6 in brackets). */
function noProxyMatches(list: string, hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  const ip = parseIp(host);
  for (const entry of list.split(",").map((s) => s.trim())) {
    const net = parseNet(entry);
    if (ip !== null) {
      if (net !== null && net.bits === ip.bits && inNet(ip.value, net)) return true;
      continue;
    }
    if (net !== null) continue;
    if (entry === host || entry === `.${host}`) return true;
    if (host.endsWith(entry)) {
      if (entry.startsWith(".") || host[host.length - entry.length - 1] === ".") return true;
    } else if (entry === "*") return true;
  }
  return false;
}

interface IpValue {
  value: bigint;
  bits: 32 | 128;
}

function inNet(v: bigint, net: IpValue & { prefix: number }): boolean {
  const shift = BigInt(net.bits - net.prefix);
  return (v >> shift) === (net.value >> shift);
}

/** `a.b.c.d`, an IPv6 address, or either with `/prefix`. */
function parseNet(s: string): (IpValue & { prefix: number }) | null {
  const [addr, prefix, ...rest] = s.split("/");
  if (rest.length) return null;
  const ip = parseIp(addr!);
  if (ip === null) return null;
  if (prefix === undefined) return { ...ip, prefix: ip.bits };
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > ip.bits) return null;
  return { ...ip, prefix: Number(prefix) };
}

function parseIp(s: string): IpValue | null {
  const v4 = parseIpv4(s);
  if (v4 !== null) return { value: v4, bits: 32 };
  if (!s.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(s)) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => h === "" ? [] : h.split(":");
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const words: number[] = [];
  for (const g of [...head, ...tail]) {
    if (g.includes(".")) {
      const four = parseIpv4(g);
      if (four === null) return null;
      words.push(Number(four >> 16n), Number(four & 0xffffn));
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(g)) words.push(parseInt(g, 16));
    else return null;
  }
  const missing = 8 - words.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...words.slice(0, head.length), ...Array(missing).fill(0), ...words.slice(head.length)];
  return { value: all.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n), bits: 128 };
}

function parseIpv4(s: string): bigint | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n);
}
