import assert from "node:assert/strict";
import { announcedTimelines, timelineUrl } from "../../runner/timeline_probe.ts";
import { fetchTimeline } from "../../runner/finalise.ts";

/** One server per answer to `GET /sim/timeline`; counts the calls. */
function server(answer: () => Response) {
  let calls = 0;
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    calls++;
    return answer();
  });
  const chat = new URL(`http://127.0.0.1:${srv.addr.port}/v1/chat/completions`);
  return { chat, calls: () => calls, srv };
}

Deno.test("a server announces its timeline only by answering GET /sim/timeline with 200 and a JSON array", async () => {
  const servers = {
    sim: server(() => Response.json([])),
    notFound: server(() => new Response("no", { status: 404 })),
    notAllowed: server(() => new Response("no", { status: 405 })),
    notImplemented: server(() => new Response("no", { status: 501 })),
    down: server(() => new Response("down", { status: 503 })),
    html: server(() => new Response("<html></html>", { headers: { "content-type": "text/html" } })),
    object: server(() => Response.json({ rows: [] })),
  };
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = new URL(`http://127.0.0.1:${(l.addr as Deno.NetAddr).port}/v1/chat/completions`);
  l.close();
  const notes: string[] = [];
  try {
    const all = Object.values(servers).map((s) => s.chat);
    // The same server behind two routes is asked once.
    const got = await announcedTimelines([...all, servers.sim.chat, closed], { note: (n) => notes.push(n) });
    assert.deepEqual([...got], [timelineUrl(servers.sim.chat).href]);
    for (const s of Object.values(servers)) assert.equal(s.calls(), 1, "one request per server, no retry");
    const why = (s: { chat: URL }) => notes.find((n) => n.includes(timelineUrl(s.chat).href));
    assert.match(why(servers.notFound)!, /no server timeline \(HTTP 404\)/);
    assert.match(why(servers.notAllowed)!, /HTTP 405/);
    assert.match(why(servers.notImplemented)!, /HTTP 501/);
    assert.match(why(servers.down)!, /HTTP 503/);
    assert.match(why(servers.html)!, /not JSON\)/);
    assert.match(why(servers.object)!, /not a JSON array/);
    assert.ok(why({ chat: closed }), "a refused connection is no timeline");
    assert.equal(notes.length, 7, "one note per server without a timeline");
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.srv.shutdown()));
  }
});

Deno.test("a probe that gets no answer in time twice means no timeline", async () => {
  let calls = 0;
  const hang = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    calls++;
    return new Promise<Response>((r) => setTimeout(() => r(Response.json([])), 400));
  });
  try {
    const chat = new URL(`http://127.0.0.1:${hang.addr.port}/v1/chat/completions`);
    const notes: string[] = [];
    assert.equal((await announcedTimelines([chat], { timeoutMs: 50, note: (n) => notes.push(n) })).size, 0);
    assert.match(notes[0]!, /no answer in 50 ms, asked twice/);
    assert.equal(calls, 2);
  } finally {
    await hang.shutdown();
  }
});

Deno.test("a probe whose first request gets no answer in time is asked once more, and the answer counts", async () => {
  let calls = 0;
  // The first request stalls past the probe's timeout (a moment's stall of the server or the runner); the second is
  // answered at once.
  const stall = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    calls++;
    return calls === 1 ? new Promise<Response>((r) => setTimeout(() => r(Response.json([])), 400)) : Response.json([]);
  });
  try {
    const chat = new URL(`http://127.0.0.1:${stall.addr.port}/v1/chat/completions`);
    const notes: string[] = [];
    const got = await announcedTimelines([chat], { timeoutMs: 100, note: (n) => notes.push(n) });
    assert.deepEqual([...got], [timelineUrl(chat).href]);
    assert.deepEqual(notes, []);
    assert.equal(calls, 2);
  } finally {
    await stall.shutdown();
  }
});

Deno.test("fetchTimeline ends at once on 501 or a body that is not JSON", async () => {
  const notImplemented = server(() => new Response("no", { status: 501 }));
  const html = server(() => new Response("<html></html>", { headers: { "content-type": "text/html" } }));
  try {
    assert.equal(await fetchTimeline(timelineUrl(notImplemented.chat), [5, 5]), null);
    assert.equal(notImplemented.calls(), 1);
    assert.equal(await fetchTimeline(timelineUrl(html.chat), [5, 5]), null);
    assert.equal(html.calls(), 1);
  } finally {
    await Promise.all([notImplemented.srv.shutdown(), html.srv.shutdown()]);
  }
});
