/**
 * A broken chunked framing after the head is named alike by both HTTP clients
 * (issue 29): fetch (hyper) reports a bad chunk size, a chunk cut short and a
 * missing last chunk with one message ("error reading a body from
 * connection"), so the raw client, which could tell them apart, names them the
 * same: `stream_cut`. A broken head stays `protocol_error` in both. One table,
 * run against every client kind, on loopback; each exchange ends when the
 * server closes (50 ms after its bytes).
 */
import assert from "node:assert/strict";
import { startClock } from "../../../runner/clock.ts";
import { createHttpClient, HTTP_CLIENT_KINDS } from "../../../runner/http/mod.ts";

const HEAD = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

/** What the server answers, and the kind both clients must name. */
const CASES: { name: string; bytes: string; kind: string }[] = [
  { name: "a bad chunk size first", bytes: HEAD + "zz\r\n", kind: "stream_cut" },
  { name: "a bad chunk size after a chunk", bytes: HEAD + "7\r\ndata: a\r\nzz\r\n", kind: "stream_cut" },
  { name: "a chunk size line not ended by CRLF", bytes: HEAD + "7\rX", kind: "stream_cut" },
  { name: "chunk data not followed by CRLF", bytes: HEAD + "1\r\naXY\r\n", kind: "stream_cut" },
  { name: "a chunk cut short (0x64 = 100 bytes announced, 7 sent)", bytes: HEAD + "64\r\ndata: a", kind: "stream_cut" },
  { name: "no last chunk", bytes: HEAD + "7\r\ndata: a\r\n", kind: "stream_cut" },
  { name: "the last chunk without its final CRLF", bytes: HEAD + "7\r\ndata: a\r\n0\r\n", kind: "stream_cut" },
  // `connection: close`: the server closes 50 ms later, so the connection must not be reused for the next case.
  {
    name: "a complete chunked body (the control)",
    bytes: HEAD.replace("\r\n\r\n", "\r\nconnection: close\r\n\r\n") + "7\r\ndata: a\r\n0\r\n\r\n",
    kind: "ok",
  },
  { name: "a broken head stays protocol_error", bytes: "HTTP/1.1 2OO OK\r\n\r\n", kind: "protocol_error" },
];

/** Answers each request with the case its path names, then closes after 50 ms. */
function framingServer(): { port: number; close: () => Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Promise<void>>();
  const serve = async (conn: Deno.Conn) => {
    const buf = new Uint8Array(65536);
    let req = "";
    try {
      while (!req.includes("\r\n\r\n")) {
        const n = await conn.read(buf);
        if (n === null) return;
        req += new TextDecoder().decode(buf.subarray(0, n));
      }
      const [head, body] = req.split("\r\n\r\n") as [string, string];
      let left = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0) - body.length;
      while (left > 0) {
        const n = await conn.read(buf);
        if (n === null) return;
        left -= n;
      }
      const k = Number(head.split(" ")[1]!.slice(1));
      await conn.write(new TextEncoder().encode(CASES[k]!.bytes));
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      conn.close();
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      const p = serve(conn).catch(() => undefined);
      open.add(p);
      p.finally(() => open.delete(p));
    }
  })().catch(() => undefined);
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close: async () => {
      listener.close();
      await accepting;
      await Promise.all(open);
    },
  };
}

Deno.test("a broken chunked framing is stream_cut in both HTTP clients; a broken head protocol_error", async (t) => {
  const server = framingServer();
  const clock = startClock();
  try {
    for (const kind of HTTP_CLIENT_KINDS) {
      const client = createHttpClient(kind, { clock });
      try {
        for (const [k, c] of CASES.entries()) {
          await t.step(`${kind}: ${c.name} → ${c.kind}`, async () => {
            const out = await client.send(
              { url: new URL(`http://127.0.0.1:${server.port}/${k}`), headers: {}, body: "{}" },
              { onHeaders() {}, onData() {} },
            );
            assert.equal(out.ok ? "ok" : out.kind, c.kind, out.ok ? "" : out.message);
          });
        }
      } finally {
        await client.close();
      }
    }
  } finally {
    await server.close();
  }
});
