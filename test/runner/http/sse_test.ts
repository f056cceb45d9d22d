import assert from "node:assert/strict";
import { SseDecoder, type SseEvent } from "../../../runner/http/sse.ts";
import { Rng } from "../../../runner/rng.ts";

const enc = new TextEncoder();

/** Decodes `bytes` cut at the given offsets; returns the events and what end() said. */
function decode(bytes: Uint8Array, cuts: number[] = []): { events: SseEvent[]; partial: boolean } {
  const dec = new SseDecoder();
  const events: SseEvent[] = [];
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    events.push(...dec.push(bytes.subarray(from, to)));
    from = to;
  }
  const end = dec.end();
  return { events: [...events, ...end.events], partial: end.partial };
}

const SAMPLE = [
  ": keep-alive comment\n",
  'event: delta\nid: 7\ndata: {"content":"héllo 👋"}\n\n',
  "data: line one\r\ndata: line two\r\n\r\n",
  "data:no-space\rdata:  two spaces\r\r",
  "retry: 100\nunknown: x\ndata\n\n",
  "data: [DONE]\n\n",
].join("");
const SAMPLE_EVENTS: SseEvent[] = [
  { event: "delta", id: "7", data: '{"content":"héllo 👋"}' },
  { data: "line one\nline two" },
  { data: "no-space\n two spaces" },
  { data: "" },
  { data: "[DONE]" },
];

Deno.test("SseDecoder yields the same events for every split of a stream", async (t) => {
  const bytes = enc.encode(SAMPLE);
  await t.step("whole", () => assert.deepEqual(decode(bytes), { events: SAMPLE_EVENTS, partial: false }));
  await t.step("split once at every byte boundary", () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      assert.deepEqual(decode(bytes, [cut]), { events: SAMPLE_EVENTS, partial: false }, `split at ${cut}`);
    }
  });
  await t.step("one byte per piece", () => {
    const cuts = Array.from({ length: bytes.length - 1 }, (_, k) => k + 1);
    assert.deepEqual(decode(bytes, cuts), { events: SAMPLE_EVENTS, partial: false });
  });
});

Deno.test("SseDecoder returns events as soon as their blank line arrives", () => {
  const dec = new SseDecoder();
  assert.deepEqual(dec.push(enc.encode("data: a\n")), []);
  assert.deepEqual(dec.push(enc.encode("\ndata: b\n")), [{ data: "a" }]);
  assert.deepEqual(dec.push(enc.encode("\n")), [{ data: "b" }]);
});

Deno.test("SseDecoder dispatches on a lone CR at once and ignores the LF that may follow", () => {
  const dec = new SseDecoder();
  assert.deepEqual(dec.push(enc.encode("data: a\r\r")), [{ data: "a" }]);
  assert.deepEqual(dec.push(enc.encode("\ndata: b\r\n\r\n")), [{ data: "b" }], "the LF closes the CR, not a new line");
});

Deno.test("SseDecoder decodes a multi-byte character split across pieces", () => {
  const bytes = enc.encode("data: 👋é\n\n");
  for (let cut = 7; cut < 12; cut++) {
    assert.deepEqual(decode(bytes, [cut]).events, [{ data: "👋é" }], `split at ${cut}`);
  }
});

Deno.test("SseDecoder.end() completes a final event and reports leftovers", async (t) => {
  await t.step("no trailing blank line: emitted only by end(), reported partial", () => {
    const dec = new SseDecoder();
    assert.deepEqual(dec.push(enc.encode("data: a\n\ndata: last\n")), [{ data: "a" }]);
    assert.deepEqual(dec.end(), { events: [{ data: "last" }], partial: true });
  });
  await t.step("cut mid-line", () => {
    assert.deepEqual(decode(enc.encode('data: a\n\ndata: {"cont')), {
      events: [{ data: "a" }, { data: '{"cont' }],
      partial: true,
    });
  });
  await t.step("cut inside a comment: no event, but partial", () => {
    assert.deepEqual(decode(enc.encode("data: a\n\n: ping")), { events: [{ data: "a" }], partial: true });
  });
  await t.step("cut inside a UTF-8 sequence", () => {
    const bytes = enc.encode("data: 👋");
    const r = decode(bytes.subarray(0, bytes.length - 1));
    assert.equal(r.partial, true);
    assert.equal(r.events.length, 1);
  });
  await t.step("clean end", () => assert.deepEqual(decode(enc.encode("data: a\n\n")).partial, false));
  await t.step("push after end() is a bug", () => {
    const dec = new SseDecoder();
    dec.end();
    assert.throws(() => dec.push(enc.encode("data: x\n\n")), TypeError);
  });
});

Deno.test("SseDecoder drops events without data and ids with NUL", () => {
  const r = decode(enc.encode("event: ping\n\nid: a\0b\ndata: x\n\n"));
  assert.deepEqual(r.events, [{ data: "x" }]);
});

/**
 * The event stream interpretation written plainly, on the stream's whole text (decoded in one call, its leading byte
 * order mark dropped): the reference the decoder's pieces are held to below.
 */
function plainEvents(bytes: Uint8Array): { events: SseEvent[]; partial: boolean } {
  const lines = new TextDecoder("utf-8").decode(bytes).split(/\r\n|\r|\n/);
  const rest = lines.pop()!;
  const events: SseEvent[] = [];
  let data: string | undefined, event: string | undefined, id: string | undefined, pending = false;
  const dispatch = () => {
    if (data !== undefined) events.push({ data, ...(event ? { event } : {}), ...(id !== undefined ? { id } : {}) });
    data = event = id = undefined;
    pending = false;
  };
  const field = (line: string) => {
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(line[colon + 1] === " " ? colon + 2 : colon + 1);
    pending = true;
    if (name === "data") data = data === undefined ? value : `${data}\n${value}`;
    else if (name === "event") event = value;
    else if (name === "id" && !value.includes("\0")) id = value;
  };
  for (const line of lines) line === "" ? dispatch() : field(line);
  const partial = rest.length > 0 || pending;
  if (rest.length > 0) field(rest);
  dispatch();
  return { events, partial };
}

Deno.test("SseDecoder matches the plain interpretation on random streams cut at random places", () => {
  const rng = new Rng(20261207);
  const bytesOf = (s: string) => Array.from(enc.encode(s));
  // Pieces of a stream: fields, line ends of every kind, multi-byte characters, byte order marks, bytes that are not
  // UTF-8 (a lone continuation byte, a lead byte without its continuation, 0xFF).
  const atoms: number[][] = [
    "data: ",
    "data:",
    "data",
    "datum: y",
    " data: z",
    "event: x",
    "id: 7",
    ": c",
    "\n",
    "\n",
    "\n\n",
    "\r",
    "\r\n",
    "abc",
    '{"t":1}',
    "\0",
    "é",
    "€",
    "👋",
    "\uFEFF",
  ].map(bytesOf).concat([[0x80], [0xc3], [0xe2, 0x82], [0xff], [0xef, 0xbb]]);
  for (let n = 0; n < 2000; n++) {
    const bytes: number[] = [];
    if (rng.next() < 0.2) bytes.push(0xef, 0xbb, 0xbf);
    for (let k = Math.floor(rng.next() * 30); k > 0; k--) bytes.push(...atoms[Math.floor(rng.next() * atoms.length)]!);
    const stream = new Uint8Array(bytes);
    const cuts = new Set<number>();
    for (let k = Math.floor(rng.next() * 6); k > 0; k--) cuts.add(Math.floor(rng.next() * (stream.length + 1)));
    const want = plainEvents(stream);
    const sorted = [...cuts].sort((a, b) => a - b);
    assert.deepEqual(decode(stream, sorted), want, `stream ${n} ${JSON.stringify(bytes)} cut at ${sorted}`);
    const everyByte = Array.from({ length: Math.max(0, stream.length - 1) }, (_, k) => k + 1);
    assert.deepEqual(decode(stream, everyByte), want, `stream ${n} one byte per piece`);
  }
});

Deno.test("SseDecoder drops only the stream's first byte order mark, however the pieces fall", () => {
  const bom = [0xef, 0xbb, 0xbf];
  const bytes = new Uint8Array([...bom, ...enc.encode("data: a\n\n"), ...bom, ...enc.encode("data: b\n\n")]);
  // The second mark is text: it starts the next line's field name ("\uFEFFdata"), which no event takes.
  const want = [{ data: "a" }];
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepEqual(decode(bytes, [cut]).events, want, `split at ${cut}`);
  }
  // A mark inside a value is the value's.
  assert.deepEqual(decode(new Uint8Array([...enc.encode("data: "), ...bom, ...enc.encode("x\n\n")])).events, [
    { data: "\uFEFFx" },
  ]);
  // A stream of the mark alone, then its end.
  assert.deepEqual(decode(new Uint8Array(bom), [1, 2]), { events: [], partial: false });
});
