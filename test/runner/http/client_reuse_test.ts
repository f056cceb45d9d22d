/**
 * The shared suite of connection reuse, redirects and body encoding, run against both clients:
 * the rules of runner/http/client.ts ("Both clients"). Every case counts the calls of `send` and
 * the requests the server read (they must be equal: no hidden resend) and checks that each answer
 * carries the tag of its own request.
 */
import assert from "node:assert/strict";
import { startClock } from "../../../runner/clock.ts";
import type { HttpClient, HttpOutcome } from "../../../runner/http/client.ts";
import { createHttpClient, HTTP_CLIENT_KINDS, type HttpClientKind } from "../../../runner/http/mod.ts";
import { answerText, type ReuseMode, type ReuseServer, startReuseServer } from "../../support/reuse_server.ts";

const clock = startClock();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  outcome: HttpOutcome;
  status: number | null;
  headers: Map<string, string> | null;
  bytes: Uint8Array;
  /** The message text of a JSON answer, or null when the body is not a completion. */
  text: string | null;
}

/**
 * Where the transports differ, stated in runner/http/client.ts: fetch (hyper) sends a request once more,
 * unseen, when a reused connection closes after the request was written and before any answer byte.
 */
const HIDDEN_RESENDS_AFTER_WRITE: Record<HttpClientKind, number> = { raw: 0, fetch: 1 };

/** A client and a server whose mode is chosen by the request's `x-tag` (`{mode}#{n}`). */
async function withPair(
  kind: HttpClientKind,
  fn: (send: Sender, srv: ReuseServer) => Promise<void>,
  hiddenResends = 0,
): Promise<void> {
  const srv = startReuseServer({ pick: (r) => r.tag.split("#")[0] as ReuseMode, laterMs: 30, lateMs: 80, closeMs: 20 });
  const client = createHttpClient(kind, { clock });
  let sends = 0;
  const send: Sender = (tag, abortAfterMs) => {
    sends++;
    return post(client, `${srv.url}/v1/chat/completions`, tag, abortAfterMs);
  };
  try {
    await fn(send, srv);
    assert.equal(srv.requests.length, sends + hiddenResends, "the server read one request per send: no hidden resend");
    for (const r of srv.requests) assert.equal(r.headers.get("accept-encoding"), "identity");
    assert.ok(srv.requests.every((r) => r.target === "/v1/chat/completions"), "no redirect was followed");
  } finally {
    await client.close();
    await srv.close();
  }
}

type Sender = (tag: string, abortAfterMs?: number) => Promise<Answer>;

async function post(client: HttpClient, url: string, tag: string, abortAfterMs?: number): Promise<Answer> {
  const ctl = new AbortController();
  const timer = abortAfterMs === undefined ? undefined : setTimeout(() => ctl.abort(), abortAfterMs);
  const got: Omit<Answer, "outcome" | "text"> = { status: null, headers: null, bytes: new Uint8Array(0) };
  const outcome = await client.send(
    {
      url: new URL(url),
      headers: { "content-type": "application/json", "x-tag": tag },
      body: "{}",
      signal: ctl.signal,
    },
    {
      onHeaders(status, headers) {
        got.status = status;
        got.headers = headers;
      },
      onData(piece) {
        const all = new Uint8Array(got.bytes.length + piece.length);
        all.set(got.bytes);
        all.set(piece, got.bytes.length);
        got.bytes = all;
      },
    },
  );
  clearTimeout(timer);
  let text: string | null = null;
  try {
    text = JSON.parse(new TextDecoder().decode(got.bytes)).choices[0].message.content;
  } catch (err) {
    if (!(err instanceof SyntaxError || err instanceof TypeError)) throw err;
  }
  return { ...got, outcome, text };
}

function assertAnswered(a: Answer, tag: string): void {
  assert.equal(a.outcome.ok, true, JSON.stringify(a.outcome));
  assert.equal(a.status, 200);
  assert.equal(a.text, answerText(tag), "the answer is to this request, not another");
}

for (const kind of HTTP_CLIENT_KINDS) {
  Deno.test(`${kind} client: no request gets another's answer; one request on the wire per send`, async (t) => {
    await t.step("a second answer in the same write as the first is never handed to the next request", async () => {
      await withPair(kind, async (send) => {
        for (let i = 0; i < 6; i++) assertAnswered(await send(`double#${i}`), `double#${i}`);
        assertAnswered(await send("ok#6"), "ok#6");
      });
    });

    await t.step(
      "a second answer arriving while the connection is idle is never handed to the next request",
      async () => {
        await withPair(kind, async (send, srv) => {
          for (let i = 0; i < 4; i++) {
            assertAnswered(await send(`double-later#${i}`), `double-later#${i}`);
            // The extra answer (30 ms later) arrives while the connection is idle. The raw client probes the
            // socket when it reuses it; fetch (hyper) drops the connection only once its connection task has
            // read the bytes, so the next request waits for an event-loop turn after they were written.
            while (srv.extrasWritten <= i) await sleep(5);
            await sleep(10);
          }
          assertAnswered(await send("ok#4"), "ok#4");
        });
      },
    );

    await t.step("a late answer to an aborted request is never handed to the next one", async () => {
      await withPair(kind, async (send) => {
        const aborted = await send("late#0", 30);
        assert.equal(aborted.outcome.ok, false);
        if (!aborted.outcome.ok) assert.equal(aborted.outcome.kind, "aborted");
        assertAnswered(await send("ok#1"), "ok#1"); // at once, before the late answer (80 ms) is written
        await sleep(80);
        assertAnswered(await send("ok#2"), "ok#2"); // after it
      });
    });

    await t.step("a connection the server closed while idle is not used; the request goes once", async () => {
      await withPair(kind, async (send, srv) => {
        for (let i = 0; i < 3; i++) {
          assertAnswered(await send(`close-idle#${i}`), `close-idle#${i}`);
          await sleep(60); // the server closes it 20 ms after answering
        }
        assertAnswered(await send("ok#3"), "ok#3");
        assert.equal(srv.connections, 4, "a fresh connection for each request after a closed one");
      });
    });

    await t.step("a reused connection closed after the request was written is connection_reset", async () => {
      const hidden = HIDDEN_RESENDS_AFTER_WRITE[kind];
      await withPair(kind, async (send, srv) => {
        assertAnswered(await send("ok#0"), "ok#0");
        const lost = await send("reset-after-read#1");
        assert.equal(lost.outcome.ok, false);
        if (!lost.outcome.ok) assert.equal(lost.outcome.kind, "connection_reset", lost.outcome.message);
        assert.equal(srv.requests[1]!.connection, 0, "it went on the reused connection");
        // raw: not resent; fetch: resent once on a fresh connection (also closed), unseen by the runner.
        assert.deepEqual(srv.requests.slice(2).map((r) => r.connection), hidden === 0 ? [] : [1]);
        assertAnswered(await send("ok#2"), "ok#2");
      }, hidden);
    });

    for (const code of [301, 302, 307]) {
      await t.step(`a ${code} is the answer, not followed`, async () => {
        await withPair(kind, async (send) => {
          const a = await send(`redirect-${code}#0`);
          assert.equal(a.outcome.ok, true);
          assert.equal(a.status, code);
          assert.equal(a.headers!.get("location"), "/moved");
          assertAnswered(await send("ok#1"), "ok#1");
        });
      });
    }

    for (const mode of ["gzip-json", "gzip-sse"] as const) {
      await t.step(`${mode}: a body encoded despite accept-encoding: identity is delivered as sent`, async () => {
        await withPair(kind, async (send) => {
          const a = await send(`${mode}#0`);
          assert.equal(a.outcome.ok, true);
          assert.equal(a.headers!.get("content-encoding"), "gzip");
          assert.deepEqual([a.bytes[0], a.bytes[1]], [0x1f, 0x8b], "gzip magic: not decoded");
          assert.equal(a.text, null);
          assertAnswered(await send("ok#1"), "ok#1");
        });
      });
    }
  });
}
