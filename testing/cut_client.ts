/**
 * A raw HTTP/1.1 client that sends one chat completion and then cuts its connection at a chosen point, as a client
 * that times out or goes away does: shared by the simulator's cut-stream test and its soak bench.
 * @module
 */

/** Where the client cuts: right after its request is written, after a pause, after some body bytes, or never. */
export type CutPoint =
  | { kind: "after_send" }
  | { kind: "after_ms"; ms: number }
  | { kind: "after_bytes"; bytes: number }
  | { kind: "read_all" };

/** What one client saw before it cut (or before the server closed). */
export interface CutResult {
  /** The HTTP status, or null when the cut came before the status line. */
  status: number | null;
  /** Bytes received (head and body). */
  bytes: number;
  /** The server closed the connection first (the whole answer was read). */
  complete: boolean;
  /** The answer held `data: [DONE]` (a stream read to its end). */
  done: boolean;
}

/** Options of {@linkcode cutRequest}. */
export interface CutRequestOptions {
  /** The loopback address. @default "127.0.0.1" */
  hostname?: string;
  /** Gives up (and cuts) after this long, so no client waits forever. @default 10000 */
  timeoutMs?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * POSTs `body` to `/v1/chat/completions` on `port` with `connection: close` and cuts at `cut`.
 *
 * @example A client that reads the whole answer of a server that sends one
 * ```ts
 * import { cutRequest } from "./cut_client.ts";
 * import assert from "node:assert/strict";
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("data: [DONE]\n\n"));
 * const r = await cutRequest(server.addr.port, { stream: true }, { kind: "read_all" });
 * assert.deepEqual([r.status, r.complete, r.done], [200, true, true]);
 * await server.shutdown();
 * ```
 */
export async function cutRequest(
  port: number,
  body: Record<string, unknown>,
  cut: CutPoint,
  options: CutRequestOptions = {},
): Promise<CutResult> {
  const json = JSON.stringify(body);
  const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n` +
    `content-type: application/json\r\ncontent-length: ${encoder.encode(json).length}\r\n\r\n`;
  const conn = await Deno.connect({ hostname: options.hostname ?? "127.0.0.1", port });
  const result: CutResult = { status: null, bytes: 0, complete: false, done: false };
  const timer = setTimeout(() => closeQuietly(conn), options.timeoutMs ?? 10_000);
  let text = "";
  try {
    await conn.write(encoder.encode(head + json));
    if (cut.kind === "after_send") return result;
    if (cut.kind === "after_ms") await new Promise((r) => setTimeout(r, cut.ms));
    const limit = cut.kind === "after_bytes" ? cut.bytes : cut.kind === "after_ms" ? 0 : Infinity;
    const buf = new Uint8Array(4096);
    while (result.bytes < limit) {
      const n = await conn.read(buf.subarray(0, Math.min(buf.length, limit - result.bytes)));
      if (n === null) {
        result.complete = true;
        break;
      }
      result.bytes += n;
      // Only the head and the stream's last event matter; the middle is not kept.
      text = (text.length < 64 ? text : text.slice(-32)) + decoder.decode(buf.subarray(0, n));
      if (result.status === null) {
        const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (m) result.status = Number(m[1]);
      }
    }
    result.done = text.includes("data: [DONE]");
    return result;
  } catch (e) {
    // The server (or the timer) closed first: what was read stands; any other failure is the caller's to see.
    if (e instanceof Deno.errors.ConnectionReset || e instanceof Deno.errors.BadResource) return result;
    throw e;
  } finally {
    clearTimeout(timer);
    closeQuietly(conn);
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch (e) {
    // Closed already (by the timer or the read loop): nothing left to free.
    if (!(e instanceof Deno.errors.BadResource)) throw e;
  }
}
