/**
 * A loopback HTTP/1.1 server on raw TCP (127.0.0.1, a free port) that misbehaves around connection
 * reuse, redirects and body encoding, for the tests of both HTTP clients and of whole runs.
 *
 * Every answer is tagged with the request it answers: its message text is `answerText(tag)` =
 * `tok0 re:{tag}`, where the tag is the request's `x-tag` header, else its `idempotency-key`, else
 * its arrival index. A client that hands one request another's answer is caught by the tag. A
 * request counts (in `requests`) once it has been read whole, before it is answered.
 *
 * Modes (chosen per request by `options.pick`):
 * - `ok` / `ok-sse`: `200` JSON with `content-length` / `200` event-stream, chunked (role, content,
 *   finish `stop`, usage, `[DONE]`), keep-alive.
 * - `double`: the `ok` answer and, in the same write, a second complete answer tagged `{tag}:extra`.
 * - `double-later`: the `ok` answer, then `laterMs` later a second answer tagged `{tag}:extra`.
 * - `late`: the `ok` answer only `lateMs` after the request (a client that gave up has gone).
 * - `close-idle`: the `ok` answer, then the server closes the connection `closeMs` later.
 * - `reset-after-read`: reads the request and closes the connection without a byte.
 * - `redirect-301` / `redirect-302` / `redirect-307`: that status, `location: /moved`, no body.
 * - `gzip-json` / `gzip-sse`: the `ok` / `ok-sse` body gzip-compressed, `content-encoding: gzip`
 *   (sent whatever the request's `accept-encoding`).
 *
 * @module
 */

export const REUSE_MODES = [
  "ok",
  "ok-sse",
  "double",
  "double-later",
  "late",
  "close-idle",
  "reset-after-read",
  "redirect-301",
  "redirect-302",
  "redirect-307",
  "gzip-json",
  "gzip-sse",
] as const;
/** One mode; see the module doc. */
export type ReuseMode = typeof REUSE_MODES[number];

/** A request as the server read it. */
export interface ReuseRequest {
  /** 0-based order of arrival. */
  index: number;
  /** 0-based order of the connection it came on. */
  connection: number;
  method: string;
  target: string;
  /** Header names lower-cased. */
  headers: Map<string, string>;
  body: string;
  tag: string;
}

export interface ReuseServerOptions {
  pick: (req: ReuseRequest) => ReuseMode;
  /** Delay of `double-later`'s second answer. @default 30 */
  laterMs?: number;
  /** Delay of `late`'s answer. @default 80 */
  lateMs?: number;
  /** Idle time after which `close-idle` closes. @default 20 */
  closeMs?: number;
}

export interface ReuseServer {
  url: string;
  requests: ReuseRequest[];
  readonly connections: number;
  /** Second answers (`double-later`) written so far. */
  readonly extrasWritten: number;
  close(): Promise<void>;
}

/** The message text of the answer to the request tagged `tag`. */
export function answerText(tag: string): string {
  return `tok0 re:${tag}`;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function completionJson(tag: string): string {
  return JSON.stringify({
    id: `chatcmpl-${tag}`,
    object: "chat.completion",
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: answerText(tag) }, finish_reason: "stop" }],
    usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
  });
}

function sseBody(tag: string): string {
  const ev = (o: unknown) =>
    `data: ${JSON.stringify({ id: `chatcmpl-${tag}`, object: "chat.completion.chunk", ...o as object })}\n\n`;
  return [
    ev({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
    ev({ choices: [{ index: 0, delta: { content: answerText(tag) }, finish_reason: null }] }),
    ev({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    ev({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 } }),
    "data: [DONE]\n\n",
  ].join("");
}

const jsonAnswer = (tag: string) => {
  const body = enc.encode(completionJson(tag));
  return concat(
    enc.encode(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`),
    body,
  );
};
const chunk = (b: Uint8Array) => concat(enc.encode(`${b.length.toString(16)}\r\n`), b, enc.encode("\r\n"));
const SSE_HEAD = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n";

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.length;
  return out;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

/** Starts the server. */
export function startReuseServer(options: ReuseServerOptions): ReuseServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: ReuseRequest[] = [];
  const open = new Set<Deno.Conn>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const handlers: Promise<void>[] = [];
  let connections = 0;
  let extrasWritten = 0;
  let closed = false;
  const later = (ms: number, fn: () => Promise<void> | void) => {
    const id = setTimeout(() => {
      timers.delete(id);
      Promise.resolve(fn()).catch(() => undefined); // the client may have gone: nothing to answer
    }, ms);
    timers.add(id);
  };
  const closeConn = (conn: Deno.Conn) => {
    if (!open.delete(conn)) return;
    conn.close();
  };

  async function answer(conn: Deno.Conn, req: ReuseRequest, mode: ReuseMode): Promise<boolean> {
    const tag = req.tag;
    switch (mode) {
      case "ok":
        await writeAll(conn, jsonAnswer(tag));
        return true;
      case "ok-sse":
        await writeAll(
          conn,
          concat(enc.encode(SSE_HEAD + "\r\n"), chunk(enc.encode(sseBody(tag))), enc.encode("0\r\n\r\n")),
        );
        return true;
      case "double":
        await writeAll(conn, concat(jsonAnswer(tag), jsonAnswer(`${tag}:extra`)));
        return true;
      case "double-later":
        await writeAll(conn, jsonAnswer(tag));
        later(options.laterMs ?? 30, async () => {
          await writeAll(conn, jsonAnswer(`${tag}:extra`));
          extrasWritten++;
        });
        return true;
      case "late":
        later(options.lateMs ?? 80, () => writeAll(conn, jsonAnswer(tag)));
        return true;
      case "close-idle":
        await writeAll(conn, jsonAnswer(tag));
        later(options.closeMs ?? 20, () => closeConn(conn));
        return true;
      case "reset-after-read":
        closeConn(conn);
        return false;
      case "redirect-301":
      case "redirect-302":
      case "redirect-307":
        await writeAll(
          conn,
          enc.encode(`HTTP/1.1 ${mode.slice(-3)} Moved\r\nlocation: /moved\r\ncontent-length: 0\r\n\r\n`),
        );
        return true;
      case "gzip-json": {
        const body = await gzip(completionJson(tag));
        const head =
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\n\r\n`;
        await writeAll(conn, concat(enc.encode(head), body));
        return true;
      }
      case "gzip-sse": {
        const body = await gzip(sseBody(tag));
        await writeAll(
          conn,
          concat(enc.encode(SSE_HEAD + "content-encoding: gzip\r\n\r\n"), chunk(body), enc.encode("0\r\n\r\n")),
        );
        return true;
      }
    }
  }

  async function serve(conn: Deno.Conn, connection: number): Promise<void> {
    let buf: Uint8Array<ArrayBuffer> = new Uint8Array(0);
    const piece = new Uint8Array(65536);
    try {
      for (;;) {
        let headEnd: number;
        while ((headEnd = indexOfHeadEnd(buf)) === -1) {
          const n = await conn.read(piece);
          if (n === null) return;
          buf = concat(buf, piece.subarray(0, n));
        }
        const lines = dec.decode(buf.subarray(0, headEnd)).split("\r\n");
        const [method = "", target = ""] = lines[0]!.split(" ");
        const headers = new Map<string, string>();
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(":");
          if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
        }
        const length = Number(headers.get("content-length") ?? "0");
        while (buf.length < headEnd + 4 + length) {
          const n = await conn.read(piece);
          if (n === null) return;
          buf = concat(buf, piece.subarray(0, n));
        }
        const body = dec.decode(buf.subarray(headEnd + 4, headEnd + 4 + length));
        buf = buf.slice(headEnd + 4 + length);
        const index = requests.length;
        const tag = headers.get("x-tag") ?? headers.get("idempotency-key") ?? String(index);
        const req: ReuseRequest = { index, connection, method, target, headers, body, tag };
        requests.push(req);
        if (!(await answer(conn, req, options.pick(req)))) return;
      }
    } catch {
      // The client closed or reset the connection: this connection is over.
    } finally {
      closeConn(conn);
    }
  }

  const accepting = (async () => {
    for await (const conn of listener) {
      if (closed) {
        conn.close();
        continue;
      }
      open.add(conn);
      handlers.push(serve(conn, connections++));
    }
  })();

  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    requests,
    get connections() {
      return connections;
    },
    get extrasWritten() {
      return extrasWritten;
    },
    async close() {
      closed = true;
      for (const id of timers) clearTimeout(id);
      timers.clear();
      listener.close();
      for (const conn of [...open]) closeConn(conn);
      await accepting.catch(() => undefined);
      await Promise.all(handlers);
    },
  };
}

function indexOfHeadEnd(b: Uint8Array): number {
  for (let i = 0; i + 3 < b.length; i++) {
    if (b[i] === 13 && b[i + 1] === 10 && b[i + 2] === 13 && b[i + 3] === 10) return i;
  }
  return -1;
}
