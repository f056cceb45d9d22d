/**
 * runner/net_proxy.ts says which proxy Deno's fetch uses: its rules, and the same answer as Deno itself for each
 * environment below (a fetch client reads the proxy variables when it is made; a loopback "proxy" counts what came
 * to it and a loopback target answers what did not).
 */
import assert from "node:assert/strict";
import { proxyFor } from "../../runner/net_proxy.ts";

const env = (vars: Record<string, string>) => (n: string) => vars[n];
const http = new URL("http://127.0.0.2:8787/v1/chat/completions");
const https = new URL("https://api.example.com/v1/chat/completions");

Deno.test("proxyFor(): the variables Deno reads, in its order", () => {
  assert.equal(proxyFor(http, env({})), null);
  assert.deepEqual(proxyFor(http, env({ HTTP_PROXY: "http://127.0.0.1:3128" })), {
    url: "http://127.0.0.1:3128",
    env: "HTTP_PROXY",
    hostPort: "127.0.0.1:3128",
  });
  // No scheme: http; no port: the scheme's; credentials, path and query are not recorded.
  assert.deepEqual(proxyFor(http, env({ http_proxy: "proxy.corp" })), {
    url: "http://proxy.corp:80",
    env: "http_proxy",
    hostPort: "proxy.corp:80",
  });
  assert.equal(
    proxyFor(https, env({ HTTPS_PROXY: "https://u:secret@proxy.corp/x?token=t" }))?.url,
    "https://proxy.corp:443",
  );
  // HTTPS_PROXY is for https URLs, HTTP_PROXY for http ones, ALL_PROXY for both and before them.
  assert.equal(proxyFor(http, env({ HTTPS_PROXY: "127.0.0.1:1" })), null);
  assert.equal(proxyFor(https, env({ HTTP_PROXY: "127.0.0.1:1" })), null);
  assert.equal(proxyFor(http, env({ ALL_PROXY: "127.0.0.1:1", HTTP_PROXY: "127.0.0.1:2" }))?.env, "ALL_PROXY");
  assert.equal(proxyFor(https, env({ all_proxy: "socks5://127.0.0.1" }))?.url, "socks5://127.0.0.1:1080");
  // Upper case first; the lower-case name when the upper-case one is unusable.
  assert.equal(proxyFor(http, env({ HTTP_PROXY: "127.0.0.1:1", http_proxy: "127.0.0.1:2" }))?.env, "HTTP_PROXY");
  assert.equal(proxyFor(http, env({ HTTP_PROXY: "", http_proxy: "127.0.0.1:2" }))?.env, "http_proxy");
  assert.equal(proxyFor(http, env({ HTTP_PROXY: "ftp://x:1", http_proxy: "127.0.0.1:2" }))?.env, "http_proxy");
  assert.equal(proxyFor(http, env({ HTTP_PROXY: "http://user@127.0.0.1:1" })), null);
  // A CGI context ignores HTTP_PROXY (not ALL_PROXY).
  assert.equal(proxyFor(http, env({ HTTP_PROXY: "127.0.0.1:1", REQUEST_METHOD: "GET" })), null);
  assert.equal(proxyFor(http, env({ ALL_PROXY: "127.0.0.1:1", REQUEST_METHOD: "GET" }))?.env, "ALL_PROXY");
});

Deno.test("proxyFor(): NO_PROXY", () => {
  const through = (host: string, noProxy: string, key = "NO_PROXY") =>
    proxyFor(new URL(`http://${host}/`), env({ HTTP_PROXY: "127.0.0.1:1", [key]: noProxy })) !== null;
  assert.equal(through("127.0.0.2:8787", "127.0.0.2"), false);
  assert.equal(through("127.0.0.2:8787", "127.0.0.0/8"), false);
  assert.equal(through("127.0.0.2:8787", "10.0.0.0/8, 127.0.0.2"), false);
  assert.equal(through("127.0.0.2:8787", "127.0.0.2", "no_proxy"), false);
  // Not matched: another address, an entry with a port, `*` for an IP address, loopback by itself.
  assert.equal(through("127.0.0.2:8787", "127.0.0.3"), true);
  assert.equal(through("127.0.0.2:8787", "127.0.0.2:8787"), true);
  assert.equal(through("127.0.0.2:8787", "*"), true);
  assert.equal(through("localhost:8787", ""), true);
  // Domains: itself and its subdomains, with or without a leading dot; `*` matches every name.
  assert.equal(through("localhost:1", "localhost"), false);
  assert.equal(through("api.example.com", "example.com"), false);
  assert.equal(through("api.example.com", ".example.com"), false);
  assert.equal(through("notexample.com", "example.com"), true);
  assert.equal(through("example.com", "*"), false);
  assert.equal(through("[::1]:8787", "::1"), false);
  assert.equal(through("[::1]:8787", "::/0"), false);
  assert.equal(through("[::1]:8787", "127.0.0.0/8"), true);
  // NO_PROXY set (even empty) hides no_proxy.
  assert.equal(
    proxyFor(new URL("http://127.0.0.2/"), env({ HTTP_PROXY: "127.0.0.1:1", NO_PROXY: "", no_proxy: "127.0.0.2" })) !==
      null,
    true,
  );
});

const PROXY_VARS = ["ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];
const OTHER_VARS = ["NO_PROXY", "no_proxy", "REQUEST_METHOD"];

Deno.test("proxyFor() answers as Deno's fetch does", async () => {
  let seen = 0;
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    seen++;
    return new Response("proxy");
  });
  const target = Deno.serve({ hostname: "127.0.0.2", port: 0, onListen: () => {} }, () => new Response("direct"));
  const P = proxy.addr.port;
  const saved = Object.fromEntries([...PROXY_VARS, ...OTHER_VARS].map((n) => [n, Deno.env.get(n)]));
  const cases: Record<string, string>[] = [
    {},
    { HTTP_PROXY: `http://127.0.0.1:${P}` },
    { http_proxy: `127.0.0.1:${P}` },
    { HTTP_PROXY: "", http_proxy: `127.0.0.1:${P}` },
    { ALL_PROXY: `127.0.0.1:${P}` },
    { HTTPS_PROXY: `127.0.0.1:${P}` },
    { HTTP_PROXY: `127.0.0.1:${P}`, NO_PROXY: "127.0.0.2" },
    { HTTP_PROXY: `127.0.0.1:${P}`, no_proxy: "127.0.0.0/8" },
    { HTTP_PROXY: `127.0.0.1:${P}`, NO_PROXY: "*" },
    { HTTP_PROXY: `127.0.0.1:${P}`, NO_PROXY: `127.0.0.2:${target.addr.port}` },
    { HTTP_PROXY: `127.0.0.1:${P}`, REQUEST_METHOD: "GET" },
    { HTTP_PROXY: `http://u:p@127.0.0.1:${P}` },
  ];
  try {
    for (const vars of cases) {
      for (const n of [...PROXY_VARS, ...OTHER_VARS]) Deno.env.delete(n);
      for (const [n, v] of Object.entries(vars)) Deno.env.set(n, v);
      const url = new URL(`http://127.0.0.2:${target.addr.port}/`);
      const client = Deno.createHttpClient({});
      seen = 0;
      const body = await (await fetch(url, { client })).text();
      client.close();
      const expected = proxyFor(url);
      assert.equal(body === "proxy", expected !== null, `${JSON.stringify(vars)}: Deno said ${body}`);
      assert.equal(seen, expected === null ? 0 : 1);
    }
  } finally {
    for (const [n, v] of Object.entries(saved)) v === undefined ? Deno.env.delete(n) : Deno.env.set(n, v);
    await proxy.shutdown();
    await target.shutdown();
  }
});
