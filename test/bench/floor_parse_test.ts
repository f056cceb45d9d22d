/**
 * The Deno floor's `--parse` (bench/floor_sender.ts), the reference bench's `floor-parse` sender: each answer's chunked
 * body taken apart as it comes, its SSE events split and parsed. A loopback responder sends hand-built answers whose
 * chunks end inside events and inside multi-byte characters, written in small pieces a millisecond apart so that size
 * lines, events and characters span reads; the rows must hold the pieces, characters and usage counted here by hand.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { floorSenderCommand, runnerRequest, runReferenceSender } from "../../bench/_reference_sender.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";

const enc = new TextEncoder();
const event = (content: string | null, extra = "") =>
  `data: {"choices":[{"index":0,"delta":${content === null ? "{}" : JSON.stringify({ content })}}]${extra}}\n\n`;

/**
 * Pieces of content: the first is the answer's template; one is an emoji (two UTF-16 units), one empty (not a piece),
 * one needs unescaping and one has a field the template has not (both read with JSON.parse).
 */
const CONTENT = ["Hé", "ll→o", "", " wörld ", "😀", 'a"b\\', "!"];
const GOOD = [
  ...CONTENT.map((c) => event(c)),
  event("x", `,"system_fingerprint":"fp"`),
  event(null, `,"finish_reason":"stop"`),
  `data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}\n\n`,
  "data: [DONE]\n\n",
].join("");
const BAD = event("a") + `data: {"choices":[{"delta":\n\n` + "data: [DONE]\n\n";
const NO_DONE = event("a") + event("b");

const HEAD = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

/** A chunked 200 answer of `body`, in chunks of `size` bytes (so they end inside events and characters). */
function chunked(body: string, size: number): Uint8Array {
  const b = enc.encode(body);
  const parts: Uint8Array[] = [enc.encode(HEAD)];
  for (let i = 0; i < b.length; i += size) {
    const piece = b.subarray(i, i + size);
    parts.push(enc.encode(`${piece.length.toString(16)}\r\n`), piece, enc.encode("\r\n"));
  }
  parts.push(enc.encode("0\r\n\r\n"));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

const ANSWERS: Record<string, Uint8Array> = {
  good: chunked(GOOD, 37),
  bad: chunked(BAD, 11),
  nodone: chunked(NO_DONE, 64),
  // A refusal with a length, not chunked: an http_error, not a bad event.
  refused: enc.encode("HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n"),
};

/** Answers each request by its id's kind (`good-1` → good), written 23 bytes at a time, 1 ms apart. */
function responder(): { port: number; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.TcpConn>();
  const latin1 = new TextDecoder("latin1");
  const serve = async (conn: Deno.TcpConn) => {
    conn.setNoDelay(true);
    let text = "";
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return;
      text += latin1.decode(buf.subarray(0, n));
      for (let end = text.indexOf("\r\n\r\n"); end >= 0; end = text.indexOf("\r\n\r\n")) {
        const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
        if (text.length < end + 4 + length) break;
        const id = /idempotency-key: [^:]*:([^:\r]+):0/i.exec(text.slice(0, end))?.[1] ?? "good-warm-up";
        text = text.slice(end + 4 + length);
        const answer = ANSWERS[id.split("-")[0]!] ?? ANSWERS.good!; // the 8 warm-up requests: good
        // The head in one write (the floor parses the head of its first read only), then the body in pieces.
        const head = HEAD.length;
        for (let at = 0; at < answer.length; at = at === 0 ? head : at + 23) {
          await conn.write(answer.subarray(at, at === 0 ? head : Math.min(answer.length, at + 23)));
          await new Promise((r) => setTimeout(r, 1));
        }
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      serve(conn).catch(() => undefined).finally(() => (conns.delete(conn), conn.close()));
    }
  })();
  return {
    port: listener.addr.port,
    async close() {
      listener.close();
      for (const c of conns) c.close();
      await accepting.catch(() => undefined);
    },
  };
}

interface ParsedRow {
  request_id: string;
  stage: string;
  scheduled_ms: number;
  send_lag_ms: number;
  completed_ms: number | "";
  outcome: string;
  first_piece_ms: number | "";
  last_piece_ms: number | "";
  pieces: number;
  content_chars: number;
  completion_tokens: number | "";
}

Deno.test("the floor's --parse counts each answer's pieces across chunk, event and character boundaries", async () => {
  const dir = await Deno.makeTempDir({ prefix: "floor-parse-test-" });
  const server = responder();
  try {
    const ids = ["good-1", "bad-1", "good-2", "nodone-1", "refused-1", "good-3"];
    const schedule = join(dir, "schedule.csv");
    await Deno.writeTextFile(
      schedule,
      "request_id,scheduled_ms,case_id,class,stage,shard\n" +
        ids.map((id, i) => `${id},${i * 250},c,default,steady,0\n`).join(""),
    );
    const rows = join(dir, "rows.csv");
    const summary = await runReferenceSender(floorSenderCommand(true), {
      schedule,
      url: `http://127.0.0.1:${server.port}/v1/chat/completions`,
      request: runnerRequest(tinyCase()),
      rows,
      runId: "p",
    });
    assert.deepEqual([summary.n, summary.ok, summary.not_sent, summary.failed], [6, 3, 0, 3]);
    const got = parse(await Deno.readTextFile(rows), { columns: true, cast: true }) as ParsedRow[];
    assert.deepEqual(got.map((r) => r.request_id), ids);
    // By hand: seven non-empty pieces; "Hé" 2 + "ll→o" 4 + " wörld " 7 + "😀" 2 + `a"b\` 4 + "!" 1 + "x" 1 = 21
    // UTF-16 units.
    for (const r of got.filter((r) => r.request_id.startsWith("good"))) {
      assert.equal(r.outcome, "ok", r.request_id);
      assert.deepEqual([r.pieces, r.content_chars, r.completion_tokens], [7, 21, 5], r.request_id);
      const [first, last, done] = [r.first_piece_ms as number, r.last_piece_ms as number, r.completed_ms as number];
      // The first piece came in an early read, the last many reads (a millisecond apart) later.
      assert.ok(r.scheduled_ms + r.send_lag_ms <= first && first < last && last <= done, JSON.stringify(r));
    }
    const bad = got.find((r) => r.request_id === "bad-1")!;
    assert.deepEqual([bad.outcome, bad.pieces], ["bad_event", 1]);
    assert.equal(got.find((r) => r.request_id === "refused-1")!.outcome, "http_error");
    const noDone = got.find((r) => r.request_id === "nodone-1")!;
    assert.deepEqual([noDone.outcome, noDone.pieces, noDone.content_chars, noDone.completion_tokens], [
      "stream_cut",
      2,
      2,
      "",
    ]);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
