import assert from "node:assert/strict";
import { join } from "node:path";
import { runLoadTest } from "../../runner/run.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";
import { resolveRoutes } from "../../runner/resolve_routes.ts";
import { startClock } from "../../runner/clock.ts";
import { unstatedConditions } from "../../runner/run_inputs.ts";
import { RunConditions } from "../../schema/mod.ts";
import { RawHttpClient } from "../../runner/http/raw_client.ts";
import { PreconnectError } from "../../runner/http/client.ts";
import { asTcpConn, type FakeTcpConn, fakeTcpConn } from "../../testing/fake_tcp_conn.ts";

/**
 * Runs a constant plan against the fault server; returns the connections it had accepted when the first request came
 * and the number run.json `runner.preconnect` states were opened to the one route before ms 0.
 */
async function connectionsAtFirstRequest(
  rate: number,
  seconds: number,
  preconnect?: number,
): Promise<{ atFirst: number; recorded: number }> {
  const dir = Deno.makeTempDirSync();
  let atFirst = -1;
  const srv = await startFaultServer({
    tokens: 2,
    pick: () => {
      if (atFirst < 0) atFirst = srv.connections;
      return "ok-sse";
    },
  });
  try {
    const { manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, rate, seconds),
      target: srv.url,
      out: join(dir, "out"),
      formats: ["csv"],
      runId: "pre",
      progress: false,
      serverTimeline: false,
      httpClient: "raw",
      ...(preconnect === undefined ? {} : { preconnect }),
    });
    assert.equal(manifest.result?.offered, Math.round(rate * seconds));
    const opened = Object.values(manifest.runner.preconnect ?? {});
    assert.equal(opened.length, 1, "one route");
    return { atFirst, recorded: opened[0]! };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("the connections opened before ms 0 follow the schedule's first 25 ms unless given", async (t) => {
  await t.step("a slow schedule: the floor of 8, and run.json says 8", async () => {
    assert.deepEqual(await connectionsAtFirstRequest(10, 0.3), { atFirst: 8, recorded: 8 });
  });
  await t.step("2,000 req/s: one per arrival of the first 25 ms, 50, all open before the first request", async () => {
    // The first request takes the newest idle connection, so the server has accepted all of them by then.
    const { atFirst, recorded } = await connectionsAtFirstRequest(2000, 0.05);
    assert.equal(recorded, 50);
    assert.ok(atFirst >= 50, `${atFirst} connections when the first request came`);
  });
  await t.step("a number given is the number opened, even for a fast schedule", async () => {
    const { atFirst, recorded } = await connectionsAtFirstRequest(2000, 0.05, 3);
    assert.equal(recorded, 3);
    assert.ok(atFirst >= 3 && atFirst < 50, `${atFirst} connections when the first request came`);
  });
});

Deno.test("each route's count is what it opened: 0 through fetch (https:) and when its connects fail", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "preconnect_" });
  const live = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const c of live) accepted.push(c);
  })();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = closed.addr.port;
  closed.close();
  const routes = writeJson(dir, "routes.json", {
    name: "three",
    policy: { kind: "single", route: "live" },
    routes: {
      live: { url: `http://127.0.0.1:${live.addr.port}`, provider: "p", model: "m" },
      tls: { url: "https://api.example.com/v1", provider: "q", model: "n" },
      refused: { url: `http://127.0.0.1:${closedPort}`, provider: "r", model: "o" },
    },
  });
  const r = await resolveRoutes({ routes, httpClient: "raw" }, RunConditions.parse(unstatedConditions()), startClock());
  const warnings: string[] = [];
  const error = console.error;
  console.error = (...a: unknown[]) => warnings.push(a.join(" "));
  try {
    assert.deepEqual(await r.preconnect(4), { live: 4, tls: 0, refused: 0 });
  } finally {
    console.error = error;
    await r.close();
    live.close();
    await accepting.catch(() => {}); // the listener closed
    for (const c of accepted) c.close();
    Deno.removeSync(dir, { recursive: true });
  }
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0]!, new RegExp(`could not open connections to http://127\\.0\\.0\\.1:${closedPort}`));
});

Deno.test("the raw client's preconnect keeps and counts the connections that opened, and asks no more than its cap", async (t) => {
  /** A connect that refuses the calls `refuse` names (1-based) and otherwise opens a socket that never answers. */
  const connects = (refuse: (call: number) => boolean) => {
    const made: FakeTcpConn[] = [];
    let calls = 0;
    const connect = () => {
      if (refuse(++calls)) return Promise.reject(new Error("connection refused"));
      const conn = fakeTcpConn(made.length);
      made.push(conn);
      return Promise.resolve(asTcpConn(conn));
    };
    return { made, connect };
  };
  const url = new URL("http://127.0.0.1:1/");
  await t.step("2 of 6 refused: the error counts the 4 that opened, and they stay open in the pool", async () => {
    const { made, connect } = connects((call) => call % 3 === 0);
    const client = new RawHttpClient({ clock: startClock(), connect });
    try {
      const err = await client.preconnect(url, 6).then(() => null, (e) => e);
      assert.ok(err instanceof PreconnectError, String(err));
      assert.equal(err.opened, 4);
      assert.equal(err.message, "2 of 6 connects failed: connection refused");
      assert.equal(client.connectionsOpened, 4);
      assert.equal(made.length, 4);
      assert.ok(made.every((c) => !c.closed), "the opened ones are kept");
    } finally {
      await client.close();
    }
  });
  await t.step("10 asked of a pool capped at 2: 2 opened and counted, none waiting for a release", async () => {
    const { made, connect } = connects(() => false);
    const client = new RawHttpClient({ clock: startClock(), connect, maxConnectionsPerHost: 2 });
    try {
      assert.equal(await client.preconnect(url, 10), 2);
      assert.equal(made.length, 2);
    } finally {
      await client.close();
    }
  });
});
