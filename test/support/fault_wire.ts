/**
 * More misbehaving answers of the fault server (test/support/fault_server.ts), at the byte level:
 * each mode takes the well-formed `ok-sse` events or `ok-json` body of the request and sends it
 * changed exactly as its description says. `sse-*` modes answer `200` `text/event-stream`
 * chunked (one HTTP chunk per event), `json-*` modes `200` `application/json` with a
 * `content-length`, both keep-alive unless the description says otherwise.
 *
 * @module
 */

/** Every wire mode, described. */
export const WIRE_MODES = {
  "sse-no-data-prefix": "every event without its `data: ` prefix (the lines are unknown SSE fields)",
  "sse-keepalive-only": "three comment events `: keepalive`, then the end of the body",
  "sse-crlf": "the ok stream with every line ended by CRLF",
  "sse-cr": "the ok stream with every line ended by a lone CR",
  "sse-byte-chunks": "the ok stream, one HTTP chunk (and one write) per byte",
  "sse-error-event": 'the role event, then `data: {"error":{...}}`, then the end of the body',
  "sse-choices-empty": "only the usage event (`choices: []`) and `[DONE]`: no text, no finish_reason",
  "sse-finish-unknown": 'the ok stream with `finish_reason: "banana"`',
  "sse-finish-missing": "the ok stream without its finish event",
  "sse-no-done": "the ok stream without `data: [DONE]`",
  "sse-no-end": "the ok stream without its finish event and without `data: [DONE]`",
  "sse-usage-negative": "usage `prompt_tokens: -5`",
  "sse-usage-float": "usage `prompt_tokens: 10.5`",
  "sse-usage-string": 'usage `completion_tokens: "abc"`',
  "sse-usage-huge": "usage `completion_tokens: 2^53 + 2` (not a safe integer)",
  "sse-usage-total-wrong": "usage `total_tokens` 1000 more than prompt + completion",
  "sse-usage-missing": "the ok stream without its usage event",
  "sse-tool-args-object": "a tool-call delta (index 0) whose `function.arguments` is an object",
  "sse-tool-calls-object": "a delta whose `tool_calls` is an object, not an array",
  "sse-choice-index-1":
    "after each token event, the same token as a second choice (`index: 1`, its own event), as an `n: 2` stream sends it",
  "sse-two-choices": "the first token event holds two choices (`index` 0 and 1) in its `choices` array",
  "sse-bom": "a UTF-8 byte-order mark before the first event",
  "sse-bad-utf8": "the first token's content carries the bytes FF FE (not UTF-8)",
  "sse-other-model": 'every event names `model: "someone-else"`',
  "sse-dup-keys": 'the first token event\'s delta is `{"content":"x","content":"tok0 "}` (a duplicate key)',
  "sse-cut-mid-json": 'the role event, then `data: {"choices":[{"del` and a clean end of the chunked body',
  "sse-long-line": "one more token event whose content is 6 MiB of `a` (one line, under the 8 MiB cap)",
  "sse-slowloris": "the head at once, then the ok stream unchunked, one byte every 40 ms, `connection: close`",
  "json-empty": "`content-length: 0`, no body",
  "json-not-json": "the body `OK`",
  "json-cut": "`content-length` of the whole body, half of it, then close",
  "json-two-lengths": "two `content-length` headers: the body's length and one more",
  "json-bom": "a UTF-8 byte-order mark before the body",
  "json-bad-utf8": "the content carries the bytes FF FE (not UTF-8)",
  "json-array": "the body `[]`",
  "json-error-200": 'status 200 with `{"error":{"message":"overloaded"}}`',
  "json-choices-empty": "`choices: []`",
  "json-choices-string": '`choices: "tok0"`',
  "json-two-choices": "a second choice (`index: 1`, its own message and finish_reason) after the first",
  "json-choice-index-1": "the one choice has `index: 1`",
  "json-content-number": "`message.content: 42`",
  "json-role-number": "`message.role: 1`",
  "json-usage-negative": "usage `prompt_tokens: -5`",
  "json-usage-huge": "usage `completion_tokens: 2^53 + 2`",
  "json-tool-args-object": "a tool call whose `function.arguments` is an object",
  "json-finish-missing": "no `finish_reason`",
  "json-dup-keys": 'the message is `{"role":"assistant","content":"x","content":"tok0 "}`',
  "json-html": "`content-type: text/html` and an HTML page",
  "501": '`501` JSON `{"error":{"message":"not implemented"}}`',
  "503-empty": "`503`, `content-length: 0`",
  "500-html": "`500`, `content-type: text/html`, an HTML page",
  "400": '`400` JSON `{"error":{"message":"bad request"}}`',
  "401": '`401` JSON `{"error":{"message":"invalid api key"}}`',
  "404-html": "`404`, `content-type: text/html`, an HTML page",
  "429-date": "`429`, `retry-after` an HTTP date 2 s ahead (1 to 2 s at one-second resolution)",
  "429-negative": "`429`, `retry-after: -5`",
  "429-huge": "`429`, `retry-after: 99999999` (capped by the policy's retry_after_cap_ms)",
  "429-garbage": "`429`, `retry-after: soon`",
} as const;
/** One wire mode. */
export type WireMode = keyof typeof WIRE_MODES;

/** What a wire mode writes: pieces (one write each, `gapMs` apart) and what the connection does after. */
export interface WireAnswer {
  pieces: (string | Uint8Array)[];
  gapMs: number;
  keepOpen: boolean;
}

const enc = new TextEncoder();
const SSE_HEAD = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
const NOT_UTF8 = new Uint8Array([0xff, 0xfe]);
const chunkOf = (b: Uint8Array) => concat(enc.encode(`${b.length.toString(16)}\r\n`), b, enc.encode("\r\n"));
const chunk = (s: string) => chunkOf(enc.encode(s));
const END = "0\r\n\r\n";
const HTML = "<html><body>fault</body></html>";

function response(status: string, type: string, body: Uint8Array | string, extra = ""): Uint8Array {
  const b = typeof body === "string" ? enc.encode(body) : body;
  return concat(
    enc.encode(`HTTP/1.1 ${status}\r\ncontent-type: ${type}\r\n${extra}content-length: ${b.length}\r\n\r\n`),
    b,
  );
}
const json = (body: Uint8Array | string, extra = "") => response("200 OK", "application/json", body, extra);
const one = (b: Uint8Array | string, keepOpen = true): WireAnswer => ({ pieces: [b], gapMs: 0, keepOpen });

/** The answer of `mode` given the request's ok events (`data: ...\n\n` each) and ok body. */
export function wireAnswer(mode: WireMode, ok: { events: readonly string[]; body: string }): WireAnswer {
  const ev = [...ok.events];
  const finishAt = ev.length - 3;
  const usageAt = ev.length - 2;
  const parse = (k: number) => JSON.parse(ev[k]!.slice(6));
  const set = (k: number, o: unknown) => void (ev[k] = `data: ${JSON.stringify(o)}\n\n`);
  // deno-lint-ignore no-explicit-any -- an event of any shape, edited in place
  const edit = (k: number, f: (o: Record<string, any>) => void) => {
    const o = parse(k);
    f(o);
    set(k, o);
  };
  const sse = (events: readonly (string | Uint8Array)[]) =>
    one(
      concat(
        enc.encode(SSE_HEAD),
        ...events.map((e) => typeof e === "string" ? chunk(e) : chunkOf(e)),
        enc.encode(END),
      ),
    );
  const body = JSON.parse(ok.body);
  const msg = body.choices[0].message;
  const bodyWith = (f: () => void) => (f(), one(json(JSON.stringify(body))));
  const errorJson = (status: string, message: string, extra = "") =>
    response(status, "application/json", JSON.stringify({ error: { message, type: "fault" } }), extra);
  const toolCall = (call: unknown) =>
    ev.splice(finishAt, 0, `data: ${JSON.stringify({ choices: [{ delta: { tool_calls: call } }] })}\n\n`);
  switch (mode) {
    case "sse-no-data-prefix":
      return sse(ev.map((e) => e.slice(6)));
    case "sse-keepalive-only":
      return sse([": keepalive\n\n", ": keepalive\n\n", ": keepalive\n\n"]);
    case "sse-crlf":
      return sse(ev.map((e) => e.replaceAll("\n", "\r\n")));
    case "sse-cr":
      return sse(ev.map((e) => e.replaceAll("\n", "\r")));
    case "sse-byte-chunks": {
      const bytes = enc.encode(ev.join(""));
      return {
        pieces: [SSE_HEAD, ...Array.from(bytes, (b) => chunkOf(new Uint8Array([b]))), END],
        gapMs: 0,
        keepOpen: true,
      };
    }
    case "sse-error-event":
      return sse([ev[0]!, `data: ${JSON.stringify({ error: { message: "overloaded", type: "server_error" } })}\n\n`]);
    case "sse-choices-empty":
      return sse(ev.slice(usageAt));
    case "sse-finish-unknown":
      edit(finishAt, (o) => (o.choices[0].finish_reason = "banana"));
      return sse(ev);
    case "sse-finish-missing":
      ev.splice(finishAt, 1);
      return sse(ev);
    case "sse-no-done":
      return sse(ev.slice(0, -1));
    case "sse-no-end":
      return sse([...ev.slice(0, finishAt), ev[usageAt]!]);
    case "sse-usage-negative":
      edit(usageAt, (o) => (o.usage.prompt_tokens = -5));
      return sse(ev);
    case "sse-usage-float":
      edit(usageAt, (o) => (o.usage.prompt_tokens = 10.5));
      return sse(ev);
    case "sse-usage-string":
      edit(usageAt, (o) => (o.usage.completion_tokens = "abc"));
      return sse(ev);
    case "sse-usage-huge":
      ev[usageAt] = ev[usageAt]!.replace(/"completion_tokens":\d+/, `"completion_tokens":9007199254740994`);
      return sse(ev);
    case "sse-usage-total-wrong":
      edit(usageAt, (o) => (o.usage.total_tokens += 1000));
      return sse(ev);
    case "sse-usage-missing":
      ev.splice(usageAt, 1);
      return sse(ev);
    case "sse-tool-args-object":
      toolCall([{ index: 0, id: "call_0", type: "function", function: { name: "f", arguments: { a: 1 } } }]);
      return sse(ev);
    case "sse-tool-calls-object":
      toolCall({ index: 0, id: "call_0", type: "function", function: { name: "f", arguments: "{}" } });
      return sse(ev);
    case "sse-choice-index-1": {
      const out: string[] = [];
      for (const [k, e] of ev.entries()) {
        out.push(e);
        if (k < 1 || k >= finishAt) continue;
        const o = parse(k);
        o.choices[0].index = 1;
        out.push(`data: ${JSON.stringify(o)}\n\n`);
      }
      return sse(out);
    }
    case "sse-two-choices":
      edit(1, (o) => o.choices.push({ ...o.choices[0], index: 1 }));
      return sse(ev);
    case "sse-bom":
      return sse([concat(BOM, enc.encode(ev[0]!)), ...ev.slice(1)]);
    case "sse-bad-utf8": {
      const [before, after] = ev[1]!.split("tok0 ");
      return sse([ev[0]!, concat(enc.encode(before! + "tok0 "), NOT_UTF8, enc.encode(after!)), ...ev.slice(2)]);
    }
    case "sse-other-model":
      return sse(ev.map((e) => e.replace(/"model":"[^"]*"/, `"model":"someone-else"`)));
    case "sse-dup-keys":
      ev[1] = ev[1]!.replace(/"delta":\{"content":/, `"delta":{"content":"x","content":`);
      return sse(ev);
    case "sse-cut-mid-json":
      return sse([ev[0]!, `data: {"choices":[{"del`]);
    case "sse-long-line":
      ev.splice(
        finishAt,
        0,
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "a".repeat(6 * 1024 * 1024) } }] })}\n\n`,
      );
      return sse(ev);
    case "sse-slowloris": {
      const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
      return {
        pieces: [head, ...Array.from(enc.encode(ev.join("")), (b) => new Uint8Array([b]))],
        gapMs: 40,
        keepOpen: false,
      };
    }
    case "json-empty":
      return one(json(""));
    case "json-not-json":
      return one(json("OK"));
    case "json-cut": {
      const b = enc.encode(ok.body);
      return one(
        concat(
          enc.encode(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${b.length}\r\n\r\n`),
          b.subarray(0, b.length >> 1),
        ),
        false,
      );
    }
    case "json-two-lengths":
      return one(json(ok.body, `content-length: ${enc.encode(ok.body).length + 1}\r\n`), false);
    case "json-bom":
      return one(json(concat(BOM, enc.encode(ok.body))));
    case "json-bad-utf8": {
      const [before, after] = ok.body.split("tok0 ");
      return one(json(concat(enc.encode(before! + "tok0 "), NOT_UTF8, enc.encode(after!))));
    }
    case "json-array":
      return one(json("[]"));
    case "json-error-200":
      return one(json(JSON.stringify({ error: { message: "overloaded" } })));
    case "json-choices-empty":
      return bodyWith(() => (body.choices = []));
    case "json-choices-string":
      return bodyWith(() => (body.choices = "tok0"));
    case "json-two-choices":
      return bodyWith(() =>
        body.choices.push({ index: 1, message: { role: "assistant", content: "other " }, finish_reason: "stop" })
      );
    case "json-choice-index-1":
      return bodyWith(() => (body.choices[0].index = 1));
    case "json-content-number":
      return bodyWith(() => (msg.content = 42));
    case "json-role-number":
      return bodyWith(() => (msg.role = 1));
    case "json-usage-negative":
      return bodyWith(() => (body.usage.prompt_tokens = -5));
    case "json-usage-huge":
      return one(json(ok.body.replace(/"completion_tokens":\d+/, `"completion_tokens":9007199254740994`)));
    case "json-tool-args-object":
      return bodyWith(
        () => (msg.tool_calls = [{ id: "call_0", type: "function", function: { name: "f", arguments: { a: 1 } } }]),
      );
    case "json-finish-missing":
      return bodyWith(() => delete body.choices[0].finish_reason);
    case "json-dup-keys":
      return one(json(ok.body.replace(`"content":`, `"content":"x","content":`)));
    case "json-html":
      return one(response("200 OK", "text/html", HTML));
    case "501":
      return one(errorJson("501 Not Implemented", "not implemented"));
    case "503-empty":
      return one(response("503 Service Unavailable", "application/json", ""));
    case "500-html":
      return one(response("500 Internal Server Error", "text/html", HTML));
    case "400":
      return one(errorJson("400 Bad Request", "bad request"));
    case "401":
      return one(errorJson("401 Unauthorized", "invalid api key"));
    case "404-html":
      return one(response("404 Not Found", "text/html", HTML));
    case "429-date":
      return one(
        errorJson(
          "429 Too Many Requests",
          "rate limited",
          `retry-after: ${new Date(Date.now() + 2000).toUTCString()}\r\n`,
        ),
      );
    case "429-negative":
      return one(errorJson("429 Too Many Requests", "rate limited", "retry-after: -5\r\n"));
    case "429-huge":
      return one(errorJson("429 Too Many Requests", "rate limited", "retry-after: 99999999\r\n"));
    case "429-garbage":
      return one(errorJson("429 Too Many Requests", "rate limited", "retry-after: soon\r\n"));
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
