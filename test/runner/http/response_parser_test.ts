import assert from "node:assert/strict";
import { ProtocolError, ResponseParser } from "../../../runner/http/response_parser.ts";

const enc = new TextEncoder();

interface Parsed {
  heads: { status: number; headers: Map<string, string> }[];
  body: string;
  done: boolean;
  keepAlive: boolean;
  consumed: number;
}

/** Feeds `raw` cut at the given offsets and collects what the parser reported. */
function parse(raw: string | Uint8Array, cuts: number[] = [], atEof = false): Parsed {
  const bytes = typeof raw === "string" ? enc.encode(raw) : raw;
  const out: Parsed = { heads: [], body: "", done: false, keepAlive: true, consumed: 0 };
  const body: number[] = [];
  const p = new ResponseParser({
    head: (status, headers) => out.heads.push({ status, headers }),
    body: (buf, s, e) => body.push(...buf.subarray(s, e)),
  });
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    // Each piece in its own buffer with junk around it: the parser must respect start/end.
    const piece = new Uint8Array(to - from + 8).fill(0x41);
    piece.set(bytes.subarray(from, to), 4);
    out.consumed += p.feed(piece, 4, 4 + to - from) - 4;
    from = to;
    if (p.done) break;
  }
  out.done = atEof ? p.eof() : p.done;
  out.keepAlive = p.keepAlive;
  out.body = new TextDecoder().decode(new Uint8Array(body));
  return out;
}

const CHUNKED = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
  "7\r\ndata: a\r\n" + "9;ext=1\r\n\n\ndata: b\r\n" + "0\r\nx-trailer: 1\r\n\r\n";
const LENGTH = "HTTP/1.1 429 Too Many Requests\r\ncontent-length: 5\r\nRetry-After: 1\r\nretry-after: 2\r\n\r\nhello";

Deno.test("ResponseParser gives the same head and body wherever the bytes are split", async (t) => {
  const cases: [string, string, string][] = [["chunked", CHUNKED, "data: a\n\ndata: b"], [
    "content-length",
    LENGTH,
    "hello",
  ]];
  for (const [name, raw, body] of cases) {
    await t.step(name, () => {
      const whole = parse(raw);
      assert.equal(whole.done, true);
      assert.equal(whole.body, body);
      for (let cut = 1; cut < raw.length; cut++) {
        const split = parse(raw, [cut]);
        assert.deepEqual(split, whole, `split at ${cut}`);
      }
      assert.deepEqual(parse(raw, Array.from({ length: raw.length - 1 }, (_, k) => k + 1)), whole, "byte by byte");
    });
  }
});

Deno.test("ResponseParser lower-cases header names and joins repeated headers", () => {
  const r = parse(LENGTH);
  assert.equal(r.heads.length, 1);
  assert.equal(r.heads[0]!.status, 429);
  assert.equal(r.heads[0]!.headers.get("retry-after"), "1, 2");
  assert.equal(r.heads[0]!.headers.get("content-length"), "5");
});

Deno.test("ResponseParser reads a repeated head the same every time, each answer its own map, and a bad line every time as bad", () => {
  const head = "HTTP/1.1 200 OK\r\nX-Same:  a b \r\ncontent-length: 0\r\nx-same: c\r\n\r\n";
  const maps: Map<string, string>[] = [];
  for (let k = 0; k < 3; k++) {
    const h = parse(head).heads[0]!.headers;
    assert.deepEqual([...h], [["x-same", "a b, c"], ["content-length", "0"]]);
    maps.push(h);
    h.set("x-same", "changed by its reader"); // each answer's own map: the next one is not changed
  }
  assert.equal(new Set(maps).size, 3);
  // The same head with another framing is read anew, body and all.
  const chunked = head.replace("content-length: 0", "transfer-encoding: chunked") + "2\r\nok\r\n0\r\n\r\n";
  const r = parse(chunked);
  assert.equal(r.body, "ok");
  assert.equal(r.done, true);
  assert.equal(parse(head).done, true);
  assert.equal(parse(head.replace("HTTP/1.1", "HTTP/1.0")).keepAlive, false);
  // 2,000 other heads in between (each one remembered in turn), then the first again.
  for (let k = 0; k < 2000; k++) parse(`HTTP/1.1 204 No\r\nx-id: ${k}\r\n\r\n`);
  assert.equal(parse(head).heads[0]!.headers.get("x-same"), "a b, c");
  for (let k = 0; k < 3; k++) assert.throws(() => parse("HTTP/1.1 200 OK\r\nbad name: 1\r\n\r\n"), ProtocolError);
});

Deno.test("ResponseParser skips 100 Continue and accepts bare LF line ends", () => {
  const r = parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\ncontent-length: 2\n\nok");
  assert.deepEqual(r.heads.map((h) => h.status), [200]);
  assert.equal(r.body, "ok");
});

Deno.test("ResponseParser stops at the end of a response and leaves later bytes", () => {
  const raw = "HTTP/1.1 204 No Content\r\n\r\nEXTRA";
  const r = parse(raw);
  assert.equal(r.done, true);
  assert.equal(r.consumed, raw.length - "EXTRA".length);
});

Deno.test("ResponseParser decides keep-alive from version and Connection", () => {
  assert.equal(parse("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").keepAlive, true);
  assert.equal(parse("HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 0\r\n\r\n").keepAlive, false);
  assert.equal(parse("HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n").keepAlive, false);
  assert.equal(parse("HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n").keepAlive, true);
});

Deno.test("ResponseParser reads a body without length until EOF", () => {
  const open = parse("HTTP/1.1 200 OK\r\n\r\npartial");
  assert.equal(open.done, false);
  assert.equal(open.keepAlive, false);
  const ended = parse("HTTP/1.1 200 OK\r\n\r\nall of it", [], true);
  assert.equal(ended.done, true);
  assert.equal(ended.body, "all of it");
});

Deno.test("ResponseParser reports an unfinished body at EOF as incomplete", () => {
  assert.equal(parse("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort", [], true).done, false);
  assert.equal(parse(CHUNKED.slice(0, -5), [], true).done, false);
});

Deno.test("ResponseParser throws ProtocolError on bytes it cannot parse", async (t) => {
  const bad: [string, string][] = [
    ["status line", "HELLO THERE\r\n\r\n"],
    ["status code", "HTTP/1.1 2x0 OK\r\n\r\n"],
    ["header without colon", "HTTP/1.1 200 OK\r\nbroken header\r\n\r\n"],
    ["header name with space", "HTTP/1.1 200 OK\r\nbad name: 1\r\n\r\n"],
    ["content-length", "HTTP/1.1 200 OK\r\ncontent-length: 1x\r\n\r\n"],
    ["conflicting content-lengths", "HTTP/1.1 200 OK\r\ncontent-length: 1, 2\r\n\r\nab"],
    ["chunk size", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"],
    ["chunk size overflow", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1234567890abc\r\n"],
    ["chunk without CRLF", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\naXY"],
    ["upgrade", "HTTP/1.1 101 Switching Protocols\r\n\r\n"],
  ];
  for (const [name, raw] of bad) {
    await t.step(name, () => assert.throws(() => parse(raw), ProtocolError));
  }
  await t.step("a head longer than 64 KiB", () => {
    const long = "HTTP/1.1 200 OK\r\n" + "x-pad: 1\r\n".repeat(7000);
    assert.throws(() => parse(long, [1000, 30000, 60000]), /head longer than 65536/);
  });
});
