/**
 * A client may hand each body piece as a view of a buffer it reuses (the raw client does: runner/http/client.ts,
 * `onData`). An attempt must read the same answer from views scribbled over after each call as from fresh pieces:
 * a whole JSON body, an error body and a stream, each in several pieces.
 */
import assert from "node:assert/strict";
import { attemptWith } from "../support/dialect_target.ts";
import type { HttpClient, HttpOutcome, ResponseHandler } from "../../runner/http/client.ts";

/** Answers with `status` and `body` in pieces of `step` bytes, fresh or views of one buffer overwritten after each. */
function piecesClient(status: number, contentType: string, body: string, step: number, reuse: boolean): HttpClient {
  return {
    name: reuse ? "reused-buffer" : "fresh-pieces",
    send(_req, h: ResponseHandler): Promise<HttpOutcome> {
      h.onHeaders(status, new Map([["content-type", contentType]]), 1);
      const bytes = new TextEncoder().encode(body);
      const shared = new Uint8Array(step);
      for (let at = 0; at < bytes.length; at += step) {
        const part = bytes.subarray(at, at + step);
        if (!reuse) h.onData(part.slice(), 2);
        else {
          shared.set(part);
          h.onData(shared.subarray(0, part.length), 2);
          shared.fill(0x7b); // "{": what the next read leaves there
        }
      }
      return Promise.resolve({ ok: true, endMs: 3 });
    },
    close: () => Promise.resolve(),
  };
}

async function attempt(client: HttpClient, stream: boolean) {
  const r = await attemptWith(client, stream);
  return { row: r.row, failure: r.failure, text: r.state.text, malformed: r.state.malformed };
}

const usage = { prompt_tokens: 7, completion_tokens: 3 };
const json = JSON.stringify({
  choices: [{ message: { role: "assistant", content: "a whole answer, read in pieces" }, finish_reason: "stop" }],
  usage,
});
const stream = [
  { choices: [{ index: 0, delta: { content: "stre" }, finish_reason: null }] },
  { choices: [{ index: 0, delta: { content: "amed" }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage },
].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
const error = JSON.stringify({ error: { message: "slow down", type: "rate_limit" } });

Deno.test("an attempt reads the same answer from a reused buffer's views as from fresh pieces", async (t) => {
  const cases: [string, number, string, string, boolean][] = [
    ["a whole JSON body", 200, "application/json", json, false],
    ["a stream", 200, "text/event-stream", stream, true],
    ["an error body", 429, "application/json", error, false],
  ];
  for (const [name, status, type, body, streamed] of cases) {
    await t.step(name, async () => {
      for (const step of [1, 7, 40]) {
        const fresh = await attempt(piecesClient(status, type, body, step, false), streamed);
        const reused = await attempt(piecesClient(status, type, body, step, true), streamed);
        assert.deepEqual(reused, fresh, `pieces of ${step}`);
        if (status === 200) {
          assert.equal(fresh.failure, null, `${name}: ${JSON.stringify(fresh.failure)}`);
          assert.equal(fresh.row.output_tokens, 3);
        }
      }
    });
  }
});
