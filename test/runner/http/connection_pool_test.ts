import assert from "node:assert/strict";
import { RawConnection } from "../../../runner/http/connection_pool.ts";

/** A connected pair on loopback: the client side wrapped as a RawConnection, and the server side. */
async function pair(): Promise<{ c: RawConnection; server: Deno.TcpConn; close(): void }> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept();
  const c = new RawConnection(await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port }), 1024);
  const server = await accepted;
  return {
    c,
    server,
    close() {
      c.close();
      server.close();
      listener.close();
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

Deno.test("RawConnection.probe() finds a connection clean while nothing arrived, and keeps its read", async () => {
  const p = await pair();
  try {
    assert.equal(await p.c.probe(), true);
    await p.server.write(new TextEncoder().encode("HTTP/1.1 204 No Content\r\n\r\n"));
    // The probe's pending read is the first read: it gets the bytes written after the probe.
    const n = await p.c.read();
    assert.equal(new TextDecoder().decode(p.c.buf.subarray(0, n!)), "HTTP/1.1 204 No Content\r\n\r\n");
  } finally {
    p.close();
  }
});

Deno.test("RawConnection.probe() finds bytes that arrived while idle, with no event-loop turn between", async () => {
  const p = await pair();
  try {
    await p.server.write(new TextEncoder().encode("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"));
    await settle(); // the bytes are in the client's socket buffer now
    assert.equal(await p.c.probe(), false);
  } finally {
    p.close();
  }
});

Deno.test("RawConnection.probe() finds a connection the server closed while idle", async () => {
  const p = await pair();
  try {
    p.server.close();
    await settle();
    assert.equal(await p.c.probe(), false);
  } finally {
    p.c.close();
  }
});
