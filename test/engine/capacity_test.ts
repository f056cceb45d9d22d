import assert from "node:assert/strict";
import { answerFacts, closedLoopCapacity } from "../../engine/capacity.ts";

const enc = new TextEncoder();

/** A streamed answer of two tokens with its usage, as llama-server sends it. */
const SSE = [
  `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`,
  `data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`,
  `data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":3}}}`,
  "data: [DONE]",
].map((l) => l + "\n\n").join("");

/**
 * A loopback HTTP/1.1 keep-alive server that answers every request with `SSE` after `delayMs`, counting the
 * connections it accepts and the requests it answers.
 */
function sseServer(o: { delayMs: number }) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const stats = { accepted: 0, answered: 0 };
  const serve = async (conn: Deno.Conn) => {
    const buf = new Uint8Array(65536);
    let held = new Uint8Array(0);
    try {
      for (;;) {
        // One request: its head, then content-length bytes of body.
        let headEnd = -1;
        while ((headEnd = new TextDecoder().decode(held).indexOf("\r\n\r\n")) === -1) {
          const n = await conn.read(buf);
          if (n === null) return;
          held = new Uint8Array([...held, ...buf.subarray(0, n)]);
        }
        const head = new TextDecoder().decode(held.subarray(0, headEnd));
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        while (held.length < headEnd + 4 + length) {
          const n = await conn.read(buf);
          if (n === null) return;
          held = new Uint8Array([...held, ...buf.subarray(0, n)]);
        }
        held = held.slice(headEnd + 4 + length);
        await new Promise((r) => setTimeout(r, o.delayMs));
        const body = enc.encode(SSE);
        await conn.write(enc.encode(
          `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${body.length}\r\n\r\n`,
        ));
        await conn.write(body);
        stats.answered++;
      }
    } catch (e) {
      // The client ended the connection, or close() below did while a read waited.
      const ended = e instanceof Deno.errors.BadResource || e instanceof Deno.errors.ConnectionReset ||
        e instanceof Deno.errors.Interrupted;
      if (!ended) throw e;
    } finally {
      try {
        conn.close();
      } catch { /* closed by the client already */ }
    }
  };
  const served: Promise<void>[] = [];
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      stats.accepted++;
      conns.push(conn);
      served.push(serve(conn));
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    stats,
    async close() {
      listener.close();
      // A connection a client keeps open would hold its reader forever.
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed already */ }
      }
      await accepting;
      await Promise.all(served);
    },
  };
}

Deno.test("answerFacts() reads the usage and finish reason of a streamed and of a whole answer", () => {
  assert.deepEqual(answerFacts(SSE), { prompt: 12, completion: 2, cached: 3, finish: "stop" });
  const whole = JSON.stringify({
    choices: [{ finish_reason: "length", message: { content: "x" } }],
    usage: { prompt_tokens: 5, completion_tokens: 7 },
  });
  assert.deepEqual(answerFacts(whole), { prompt: 5, completion: 7, cached: 0, finish: "length" });
});

Deno.test("closedLoopCapacity() sends each request on a fresh connection and counts the window's answers", async () => {
  const server = sseServer({ delayMs: 20 });
  try {
    const c = await closedLoopCapacity(server.url, {
      body: (i) => JSON.stringify({ messages: [{ role: "user", content: `q${i}` }] }),
      concurrency: 2,
      warmupS: 0.2,
      seconds: 1,
    });
    assert.equal(c.errors, 0, c.error_kinds.join(", "));
    // Two in flight, 20 ms each: about 100 answers a second; the window holds at least a good part of them.
    assert.ok(c.completions >= 20, `${c.completions} answers`);
    assert.equal(c.completions_per_s, c.completions / 1);
    assert.equal(c.mean_prompt_tokens, 12);
    assert.equal(c.cached_prompt_share, 3 / 12);
    assert.equal(c.stopped_share, 1);
    // The server answered every request the loop sent (warm-up and window), each on its own connection: over a
    // keep-alive pool a request could go out on a connection as the server closes it, and fail before it reached the
    // server — a client artefact the measurement would count as the engine's error.
    assert.equal(server.stats.accepted, server.stats.answered);
  } finally {
    await server.close();
  }
});
