/**
 * The raw client hands each read's body as a view of its connection's read buffer, which the next read overwrites
 * (runner/http/client.ts, `onData`). The stream decoders must keep nothing of a piece but copies: fed views of one
 * buffer scribbled over after every push, they give what they give for the same bytes in fresh pieces.
 */
import assert from "node:assert/strict";
import { SseDecoder } from "../../../runner/http/sse.ts";
import { AwsEventStreamDecoder } from "../../../runner/dialects/aws_eventstream.ts";
import { concat, encodeFrame, fixture } from "../dialects/_bedrock_frames.ts";

interface Decoder {
  push(piece: Uint8Array): readonly unknown[];
  end(): unknown;
}

/** Events and end of `bytes` cut every `step` bytes, each piece fresh or a view of one reused, scribbled buffer. */
function feed(make: () => Decoder, bytes: Uint8Array, step: number, reuse: boolean): unknown[] {
  const dec = make();
  const shared = new Uint8Array(step + 8);
  const out: unknown[] = [];
  for (let at = 0; at < bytes.length; at += step) {
    const part = bytes.subarray(at, at + step);
    let piece = part.slice();
    if (reuse) {
      shared.set(part, 3);
      piece = shared.subarray(3, 3 + part.length);
    }
    out.push(...dec.push(piece));
    shared.fill(0xff); // what the next read would leave there (and not valid UTF-8)
  }
  out.push(dec.end());
  return out;
}

Deno.test("stream decoders keep copies, never views, of the pieces they are given", async (t) => {
  await t.step("SSE: multi-byte characters, CR LF and events split at every offset", () => {
    const text =
      "data: h\u00e9llo \u{1f600}\r\n\r\nevent: x\r\ndata: a\u00fc\ndata: b\n\n: note\ndata: [DONE]\n\ndata: tail";
    const bytes = new TextEncoder().encode(text);
    for (const step of [1, 2, 3, 5, 7, 11, 64]) {
      const fresh = feed(() => new SseDecoder(), bytes, step, false);
      assert.deepEqual(feed(() => new SseDecoder(), bytes, step, true), fresh, `pieces of ${step}`);
      assert.equal(fresh.length, 4); // three events, then the end with the unterminated "tail"
    }
  });
  await t.step("AWS event stream: frames split across pieces", () => {
    const bytes = concat(fixture("text.json").frames.map(encodeFrame));
    for (const step of [1, 5, 13, 37, 100]) {
      const fresh = feed(() => new AwsEventStreamDecoder(), bytes, step, false);
      assert.deepEqual(feed(() => new AwsEventStreamDecoder(), bytes, step, true), fresh, `pieces of ${step}`);
      assert.ok(fresh.length > 3);
    }
  });
});
