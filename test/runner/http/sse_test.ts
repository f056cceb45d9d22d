import assert from "node:assert/strict";
import { SseDecoder, type SseEvent } from "../../../runner/http/sse.ts";

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
