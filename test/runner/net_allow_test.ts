/**
 * runner/net_allow.ts: the run's allow-list, the guard in front of each route's client (a request to any other host is
 * refused with a NetAllowError naming it, and nothing is sent), and resolveRoutes() building both.
 */
import assert from "node:assert/strict";
import { guardClient, hostPort, NetAllowError, NetAllowList } from "../../runner/net_allow.ts";
import type { HttpClient } from "../../runner/http/client.ts";
import { resolveRoutes } from "../../runner/resolve_routes.ts";
import { startClock } from "../../runner/clock.ts";
import { unstatedConditions } from "../../runner/run_inputs.ts";
import { RunConditions } from "../../schema/mod.ts";
import { writeJson } from "../../testing/tiny_workload.ts";

Deno.test("hostPort() writes the port out", () => {
  assert.equal(hostPort(new URL("http://127.0.0.2/")), "127.0.0.2:80");
  assert.equal(hostPort(new URL("https://API.example.com/v1")), "api.example.com:443");
  assert.equal(hostPort(new URL("http://[::1]:8787/")), "[::1]:8787");
});

Deno.test("guardClient() refuses a host outside the list, before the client sees it", async () => {
  const sent: string[] = [];
  const inner: HttpClient = {
    name: "fake",
    send(req) {
      sent.push(req.url.href);
      return Promise.resolve({ ok: true, endMs: 0 });
    },
    preconnect(url, n) {
      sent.push(`preconnect ${url.href}`);
      return Promise.resolve(n);
    },
    close: () => Promise.resolve(),
  };
  const allow = new NetAllowList([new URL("http://127.0.0.2:8787/v1/chat/completions")], ["127.0.0.1:3128"]);
  const client = guardClient(inner, allow);
  const handler = { onHeaders() {}, onData() {} };
  const body = { headers: {}, body: "{}" };
  assert.deepEqual(await client.send({ url: new URL("http://127.0.0.2:8787/v1/chat/completions"), ...body }, handler), {
    ok: true,
    endMs: 0,
  });
  for (const other of ["http://127.0.0.2:8788/", "http://127.0.0.2/", "http://127.0.0.3:8787/"]) {
    const err = await client.send({ url: new URL(other), ...body }, handler).then(() => null, (e) => e);
    assert.ok(err instanceof NetAllowError, other);
    assert.match(err.message, /^refused a request to 127\.0\.0\.\d:(87\d\d|80): not one of the run's targets/);
    assert.match(err.message, /\(127\.0\.0\.1:3128, 127\.0\.0\.2:8787\)/);
  }
  await assert.rejects(() => client.preconnect!(new URL("http://example.com/"), 1), NetAllowError);
  assert.deepEqual(sent, ["http://127.0.0.2:8787/v1/chat/completions"]);
  assert.equal(client.name, "fake");
});

Deno.test("resolveRoutes(): the allow-list is the routes' hosts (with --route-url overrides), each client guarded", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "net_allow_" });
  const routes = writeJson(dir, "routes.json", {
    name: "two",
    policy: { kind: "single", route: "a" },
    routes: {
      a: { url: "http://127.0.0.2:9001", provider: "p", model: "m" },
      b: { url: "https://api.example.com/v1", provider: "q", model: "n" },
      c: { url: "http://127.0.0.9:9003", provider: "r", model: "o" },
    },
  });
  const conditions = RunConditions.parse(unstatedConditions());
  const r = await resolveRoutes(
    { routes, routeUrls: { c: "http://127.0.0.3:9003" } },
    conditions,
    startClock(),
  );
  try {
    assert.deepEqual(r.allow.hosts, ["127.0.0.2:9001", "127.0.0.3:9003", "api.example.com:443"]);
    const a = r.routes.get("a")!;
    const err = await a.client.send(
      { url: new URL("http://127.0.0.9:9003/v1/chat/completions"), headers: {}, body: "{}" },
      { onHeaders() {}, onData() {} },
    ).then(() => null, (e) => e);
    assert.ok(err instanceof NetAllowError);
    assert.equal(err.host, "127.0.0.9:9003");
  } finally {
    await r.close();
  }
});
