/** Bad OTLP/JSON input: an InputError naming the file and the line (and the span and attribute when it is one). */
import assert from "node:assert/strict";
import { InputError } from "../../../schema/errors.ts";
import { readOtlp } from "../../../importers/sources/otlp.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";

Deno.test("bad OTLP input is an InputError naming the file and the line", async (t) => {
  const file = "t.jsonl";
  const line = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
  const span = (over: Record<string, unknown> = {}) => ({
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    name: "root",
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000001000000000",
    ...over,
  });
  const cases: [string, string, RegExp][] = [
    [
      "a file cut in its last line",
      `${line([span()])}\n${line([span({ spanId: "b7ad6b7169203332" })]).slice(0, 50)}`,
      /^t\.jsonl:2:51: not valid JSON/,
    ],
    [
      "one document cut short",
      JSON.stringify(JSON.parse(line([span()])), null, 2).slice(0, 120),
      /^t\.jsonl:\d+:\d+: not valid JSON/,
    ],
    [
      "a span with no start",
      line([{ ...span(), startTimeUnixNano: undefined }]),
      /t\.jsonl:1: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.startTimeUnixNano/,
    ],
    [
      "a trace id of the wrong length",
      `\n\n${line([span({ traceId: "abc" })])}`,
      /t\.jsonl:3: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId: "abc" is not 16 bytes/,
    ],
    [
      "an attribute of the wrong type",
      line([span({ attributes: [{ key: "goodput.priority", value: { stringValue: "high" } }] })]),
      /t\.jsonl:1: span "root" \(b7ad6b7169203331\): attribute goodput\.priority: "high" is not an integer/,
    ],
    [
      "an unknown outcome",
      line([span({ attributes: [{ key: "goodput.outcome", value: { stringValue: "fine" } }] })]),
      /t\.jsonl:1: task "0af7651916cd43dd8448eb211c80319c": request: outcome/,
    ],
    [
      "two roots with one request id",
      line([
        span({ attributes: [{ key: "goodput.request_id", value: { stringValue: "r" } }] }),
        span({ spanId: "b7ad6b7169203332", attributes: [{ key: "goodput.request_id", value: { stringValue: "r" } }] }),
      ]),
      /request id "r" is the task of 2 roots/,
    ],
    ["an empty file", "\n", /t\.jsonl: empty file/],
    ["no root span", line([span({ parentSpanId: "ffffffffffffffff" })]), /no root span/],
  ];
  for (const [name, text, error] of cases) {
    await t.step(name, () => {
      assert.throws(() => readOtlp([sourceText(file, text)]), (e: unknown) => {
        assert.ok(e instanceof InputError, String(e));
        assert.match(e.message, error);
        return true;
      });
    });
  }
});
