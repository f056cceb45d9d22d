import assert from "node:assert/strict";
import { fetchTimeline } from "../../runner/finalise.ts";
import { timelineRow } from "../support/fault_misshapen.ts";

const ROW = timelineRow(1);

/** A timeline server that answers `status` to its first `failures` requests, then the rows. */
function server(failures: number, status: number) {
  let calls = 0;
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    calls++;
    if (new URL(req.url).pathname !== "/sim/timeline") return new Response("no", { status: 404 });
    if (calls <= failures) return new Response("down", { status });
    return Response.json([ROW]);
  });
  return { url: new URL(`http://127.0.0.1:${srv.addr.port}/sim/timeline`), calls: () => calls, srv };
}

Deno.test("fetchTimeline waits out an outage still open at the end of the run", async () => {
  const s = server(2, 503);
  try {
    const rows = await fetchTimeline(s.url, [10, 10, 10]);
    assert.deepEqual(rows, [ROW]);
    assert.equal(s.calls(), 3);
  } finally {
    await s.srv.shutdown();
  }
});

Deno.test("fetchTimeline gives up after its waits, and never retries a 4xx", async () => {
  const down = server(100, 503);
  const bad = server(100, 400);
  try {
    assert.equal(await fetchTimeline(down.url, [5, 5]), null);
    assert.equal(down.calls(), 3);
    assert.equal(await fetchTimeline(bad.url, [5, 5]), null);
    assert.equal(bad.calls(), 1);
    // A target without a timeline (404) has no server rows, at once.
    assert.equal(await fetchTimeline(new URL("/other", down.url), [5, 5]), null);
    assert.equal(down.calls(), 4);
  } finally {
    await Promise.all([down.srv.shutdown(), bad.srv.shutdown()]);
  }
});

Deno.test("fetchTimeline retries a refused connection", async () => {
  // Take a free port, close it: the first attempts are refused, then a server comes up on it.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const url = new URL(`http://127.0.0.1:${port}/sim/timeline`);
  const later = new Promise<Deno.HttpServer>((resolve) =>
    setTimeout(
      () => resolve(Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, () => Response.json([ROW]))),
      150,
    )
  );
  try {
    assert.deepEqual(await fetchTimeline(url, [100, 200, 400]), [ROW]);
  } finally {
    await (await later).shutdown();
  }
});
