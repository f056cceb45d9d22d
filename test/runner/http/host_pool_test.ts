/**
 * The raw client's pool on a fake connect: who gets which connection, how many connects run at once, and where a
 * failed connect's error goes. Real sockets connect at once on loopback, so the order of events is set here by hand.
 */
import assert from "node:assert/strict";
import { HostPool, type RawConnection } from "../../../runner/http/connection_pool.ts";
import { asTcpConn, type FakeTcpConn, fakeTcpConn } from "../../../testing/fake_tcp_conn.ts";

/** A connect the test settles by hand: `pending[i]` is the i-th connect asked for. */
function fakeConnects() {
  const pending: { resolve(): void; reject(err: Error): void }[] = [];
  const made: FakeTcpConn[] = [];
  const connect = () =>
    new Promise<Deno.TcpConn>((resolve, reject) => {
      const conn = fakeTcpConn(made.length);
      made.push(conn);
      pending.push({ resolve: () => resolve(asTcpConn(conn)), reject });
    });
  return { pending, made, connect };
}

const idOf = (c: RawConnection) => (c.conn as unknown as FakeTcpConn).id;
const tick = async () => {
  for (let k = 0; k < 4; k++) await Promise.resolve();
};

/** A pool on fake connects, and the list `track` writes to. */
function setUp(maxConnecting = 128) {
  const f = fakeConnects();
  const p = new HostPool({
    hostname: "127.0.0.1",
    port: 1,
    maxConnections: 4096,
    idleTimeoutMs: 60_000,
    bufferBytes: 16,
    maxConnecting,
    connect: f.connect,
  });
  return { f, p, got: [] as string[] };
}

/** Settles as `label: connection id`, or `label: error message`. */
function track(p: Promise<RawConnection>, label: string, out: string[]): Promise<void> {
  return p.then((c) => void out.push(`${label}: ${idOf(c)}`), (e) => void out.push(`${label}: ${e.message}`));
}

Deno.test("a waiting request takes a released connection before its own connect ends, which then stays idle", async () => {
  const { f, p, got } = setUp();
  const a = p.acquire(undefined);
  f.pending[0]!.resolve();
  const first = await a;
  // b finds nothing idle: it waits, and opens connection 1 for the queue.
  const b = track(p.acquire(undefined), "b", got);
  await tick();
  assert.equal(f.pending.length, 2);
  p.release(first);
  await b;
  assert.deepEqual(got, ["b: 0"], "b got the released connection; its own connect has not ended");
  f.pending[1]!.resolve();
  await tick();
  const idle = p.takeIdle();
  assert.equal(idle && idOf(idle), 1, "the connection opened for b is idle, for the next request");
  assert.equal(idle!.pooled, true, "it sat idle: the request that takes it probes it first");
  assert.equal(p.opened, 2);
});

Deno.test("a connect's connection goes to the request that opened it while it waits, a released one to the oldest", async () => {
  const { f, p, got } = setUp();
  const conns = new Map<string, RawConnection>();
  const take = (x: string) =>
    p.acquire(undefined).then((c) => {
      conns.set(x, c);
      got.push(`${x}: ${idOf(c)}`);
    }, (e) => void got.push(`${x}: ${e.message}`));
  const [a, b, c] = ["a", "b", "c"].map(take);
  await tick();
  assert.equal(f.pending.length, 3);
  f.pending[1]!.resolve(); // b's connect ends first: b's
  await tick();
  assert.deepEqual(got, ["b: 1"]);
  p.release(conns.get("b")!); // then b's exchange ends: to a, the oldest waiting
  await tick();
  // a's own connect fails after a was served: nobody fails, and c still has its own connect.
  f.pending[0]!.reject(new Error("refused 0"));
  await tick();
  f.pending[2]!.resolve();
  await tick();
  assert.deepEqual(got, ["b: 1", "a: 1", "c: 2"]);
  await Promise.all([a, b, c]);
});

Deno.test("at most maxConnecting connects at once; an ended one lets the next waiting request open one", async () => {
  const { f, p, got } = setUp(2);
  const conns = new Map<string, RawConnection>();
  const all = ["a", "b", "c", "d", "e"].map((x) =>
    p.acquire(undefined).then((c) => {
      conns.set(x, c);
      got.push(`${x}: ${idOf(c)}`);
    })
  );
  await tick();
  assert.equal(f.pending.length, 2, "a and b connect; c, d and e wait without");
  f.pending[0]!.resolve(); // to a; c may open one now
  await tick();
  assert.equal(f.pending.length, 3);
  p.release(conns.get("a")!); // a's exchange ended: its connection goes to b, whose connect has not ended
  await tick();
  f.pending[1]!.resolve(); // to c; d opens one
  await tick();
  assert.equal(f.pending.length, 4);
  f.pending[2]!.resolve(); // to d; e opens one
  await tick();
  assert.equal(f.pending.length, 5);
  f.pending[3]!.resolve(); // to e
  await Promise.all(all);
  assert.deepEqual(got, ["a: 0", "b: 0", "c: 1", "d: 2", "e: 3"]);
  f.pending[4]!.resolve(); // nobody waits: idle
  await tick();
  const idle = p.takeIdle();
  assert.equal(idle && idOf(idle), 4);
});

Deno.test("a failed connect fails the request that opened it while it waits, and nobody once it was served", async () => {
  const { f, p, got } = setUp();
  const a = track(p.acquire(undefined), "a", got);
  await tick();
  f.pending[0]!.reject(new Error("refused 0"));
  await a;
  assert.deepEqual(got, ["a: refused 0"]);
  // b gets connection 1; c waits with connect 2 open, d with connect 3.
  const b = p.acquire(undefined);
  await tick();
  f.pending[1]!.resolve();
  const bConn = await b;
  const c = track(p.acquire(undefined), "c", got);
  const d = track(p.acquire(undefined), "d", got);
  await tick();
  p.release(bConn); // to c
  await c;
  f.pending[2]!.reject(new Error("refused 2")); // c's own connect: c was served, so nobody fails
  await tick();
  f.pending[3]!.resolve(); // d's
  await d;
  assert.deepEqual(got, ["a: refused 0", "c: 1", "d: 3"]);
});

Deno.test("an aborted waiting request fails with the reason; the connect it opened serves the next", async () => {
  const { f, p, got } = setUp();
  const stop = new AbortController();
  const a = track(p.acquire(stop.signal), "a", got);
  const b = track(p.acquire(undefined), "b", got);
  await tick();
  stop.abort(new Error("stopped"));
  await a;
  f.pending[0]!.resolve();
  await b;
  assert.deepEqual(got, ["a: stopped", "b: 0"]);
});

Deno.test("a connect that ends after the pool closed is closed, and the waiting requests fail", async () => {
  const { f, p, got } = setUp();
  const a = track(p.acquire(undefined), "a", got);
  await tick();
  p.close();
  await a;
  f.pending[0]!.resolve();
  await tick();
  assert.deepEqual(got, ["a: HTTP client closed"]);
  assert.equal(p.takeIdle(), undefined);
  assert.equal(f.made[0]!.closed, true);
});
