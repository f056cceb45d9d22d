import assert from "node:assert/strict";
import { startClock } from "../../../runner/clock.ts";
import type { HttpOutcome, ResponseHandler } from "../../../runner/http/client.ts";
import { RawHttpClient } from "../../../runner/http/raw_client.ts";
import { type FaultMode, startFaultServer } from "../../support/fault_server.ts";

const clock = startClock();
const ignore: ResponseHandler = { onHeaders() {}, onData() {} };

function post(client: RawHttpClient, url: string, body = "{}", signal?: AbortSignal): Promise<HttpOutcome> {
  return client.send({ url: new URL(url), headers: { "content-type": "application/json" }, body, signal }, ignore);
}

Deno.test("raw client reuses keep-alive connections for sequential requests", async () => {
  const srv = await startFaultServer({ tokens: 2 });
  const client = new RawHttpClient({ clock });
  try {
    for (let i = 0; i < 40; i++) {
      const mode = (["ok-sse", "ok-json", "500", "429", "malformed-sse"] as const)[i % 5];
      assert.equal((await post(client, `${srv.url}/${mode}/x`)).ok, true);
    }
    assert.equal(client.connectionsOpened, 1);
    assert.equal(srv.connections, 1);
    assert.equal(srv.requests.length, 40);
  } finally {
    await client.close();
    await srv.close();
  }
});

Deno.test("raw client caps connections per host and queues the rest in FIFO order", async () => {
  const srv = await startFaultServer({ tokens: 2, slowDelayMs: 30 });
  const client = new RawHttpClient({ clock, maxConnectionsPerHost: 2 });
  try {
    const outs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(client, `${srv.url}/slow/x`, `{"n":${i}}`)),
    );
    assert.ok(outs.every((o) => o.ok));
    assert.equal(srv.connections, 2);
    // Requests 0 and 1 go first on the two connections; the queue hands out 2..5 in order.
    const order = srv.requests.map((r) => JSON.parse(r.body).n);
    assert.deepEqual(order.slice(2), [2, 3, 4, 5]);
    assert.deepEqual(new Set(order.slice(0, 2)), new Set([0, 1]));
  } finally {
    await client.close();
    await srv.close();
  }
});

Deno.test("raw client reports a request's first byte when it was written, not when it was handed over", async () => {
  // One connection: the second request waits for the first's answer (~4 tokens × 30 ms) before it can be written.
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: 30 });
  const client = new RawHttpClient({ clock, maxConnectionsPerHost: 1 });
  const sent: (number | null)[] = [null, null];
  const send = (i: number) =>
    client.send({ url: new URL(`${srv.url}/slow/x`), headers: {}, body: "{}" }, {
      ...ignore,
      onSent: (t) => sent[i] = t,
    });
  try {
    const handedMs = clock.now();
    const [first, second] = await Promise.all([send(0), send(1)]);
    assert.ok(first.ok && second.ok);
    // The first goes at once; the second only after the first's answer ended on the shared connection.
    assert.ok(sent[0]! >= handedMs && sent[0]! < first.endMs);
    assert.ok(sent[1]! >= first.endMs, `second written at ${sent[1]}, first answer ended at ${first.endMs}`);
  } finally {
    await client.close();
    await srv.close();
  }
});

Deno.test("raw client ends a queued request as aborted without sending it", async () => {
  const srv = await startFaultServer({ tokens: 2, slowDelayMs: 40 });
  const client = new RawHttpClient({ clock, maxConnectionsPerHost: 1 });
  try {
    const busy = post(client, `${srv.url}/slow/x`);
    const queued = post(client, `${srv.url}/ok-json/x`, "{}", AbortSignal.timeout(20));
    const out = await queued;
    assert.equal(out.ok, false);
    if (!out.ok) assert.equal(out.kind, "aborted");
    assert.equal((await busy).ok, true);
    assert.equal(srv.counts["ok-json"], 0);
    assert.equal((await post(client, `${srv.url}/ok-json/x`)).ok, true, "the slot is free again");
  } finally {
    await client.close();
    await srv.close();
  }
});

Deno.test("raw client never sends a request twice once a byte of it was written", async (t) => {
  await t.step("a reused connection closed after the request: connection_reset, sent once", async () => {
    // Request 1 goes on the reused connection; the server reads it and closes without a byte.
    const script: FaultMode[] = ["ok-json", "reset", "ok-json"];
    const srv = await startFaultServer({ pick: (r) => script[r.index] });
    const client = new RawHttpClient({ clock });
    try {
      assert.equal((await post(client, `${srv.url}/x`)).ok, true);
      const out = await post(client, `${srv.url}/x`);
      assert.equal(out.ok, false);
      if (!out.ok) assert.equal(out.kind, "connection_reset");
      assert.equal(srv.requests.length, 2, "no resend: the retry policy decides, with its own attempt row");
      assert.equal((await post(client, `${srv.url}/x`)).ok, true, "the next request gets a fresh connection");
      assert.equal(srv.connections, 2);
    } finally {
      await client.close();
      await srv.close();
    }
  });

  await t.step("a fresh connection that dies is connection_reset, sent once", async () => {
    const srv = await startFaultServer({ pick: () => "reset" });
    const client = new RawHttpClient({ clock });
    try {
      const out = await post(client, `${srv.url}/x`);
      assert.equal(out.ok, false);
      if (!out.ok) assert.equal(out.kind, "connection_reset");
      assert.equal(srv.counts.reset, 1);
    } finally {
      await client.close();
      await srv.close();
    }
  });
});

Deno.test("raw client does not reuse connections idle longer than idleTimeoutMs", async () => {
  const srv = await startFaultServer();
  const client = new RawHttpClient({ clock, idleTimeoutMs: 20 });
  try {
    assert.equal((await post(client, `${srv.url}/ok-json/x`)).ok, true);
    assert.equal((await post(client, `${srv.url}/ok-json/x`)).ok, true);
    assert.equal(client.connectionsOpened, 1);
    await new Promise((r) => setTimeout(r, 40));
    assert.equal((await post(client, `${srv.url}/ok-json/x`)).ok, true);
    assert.equal(client.connectionsOpened, 2);
  } finally {
    await client.close();
    await srv.close();
  }
});

Deno.test("raw client: a body encoded once is the same bytes every time, and a bad header value is refused after a good one", async () => {
  const srv = await startFaultServer({ tokens: 2 });
  const client = new RawHttpClient({ clock });
  const send = (headers: Record<string, string>, body: string) =>
    client.send({ url: new URL(`${srv.url}/ok-json/x`), headers, body }, ignore);
  try {
    const bodies = ['{"a":"\u00e9t\u00e9"}', "{}", '{"a":"\u00e9t\u00e9"}', "{}"];
    for (const [k, body] of bodies.entries()) {
      assert.equal((await send({ "x-route": "a", "idempotency-key": `r:${k}`, Host: "evil" }, body)).ok, true);
    }
    // The same name with a smuggling value, and a bad name: refused, nothing sent.
    for (const headers of [{ "x-route": "a\r\nx-b: 1" }, { "bad name": "1" }] as Record<string, string>[]) {
      const out = await send(headers, "{}");
      assert.equal(out.ok, false);
      if (!out.ok) assert.equal(out.kind, "protocol_error");
    }
    assert.equal((await send({ "x-route": "b" }, "{}")).ok, true);
    assert.deepEqual(srv.requests.map((r) => r.body), [...bodies, "{}"]);
    assert.deepEqual(srv.requests.map((r) => r.headers.get("x-route")), ["a", "a", "a", "a", "b"]);
    assert.deepEqual(srv.requests.map((r) => r.headers.get("idempotency-key") ?? null), [
      "r:0",
      "r:1",
      "r:2",
      "r:3",
      null,
    ]);
    // `host` is the client's own header: the route's is dropped every time, not only the first.
    assert.ok(srv.requests.every((r) => r.headers.get("host") === new URL(srv.url).host));
    assert.deepEqual(srv.requests.map((r) => r.headers.get("content-length")), ["13", "2", "13", "2", "2"]);
  } finally {
    await client.close();
    await srv.close();
  }
});

Deno.test("raw client rejects bad input as outcomes, not exceptions", async (t) => {
  const client = new RawHttpClient({ clock });
  await t.step("an unsupported scheme", async () => {
    const out = await post(client, "ftp://127.0.0.1/x");
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.message, /unsupported URL scheme ftp:/);
  });
  await t.step("a header value with CR LF (request smuggling)", async () => {
    const out = await client.send(
      { url: new URL("http://127.0.0.1:9/x"), headers: { "x-a": "1\r\nx-b: 2" }, body: "" },
      ignore,
    );
    assert.equal(out.ok, false);
    if (!out.ok) assert.equal(out.kind, "protocol_error");
  });
  await client.close();
});
