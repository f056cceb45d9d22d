import assert from "node:assert/strict";
import { outputValid } from "../../../runner/checks/output_valid.ts";
import { input, INVOICE_SCHEMA, makeCase } from "./_cases.ts";

const plain = makeCase();
const json = makeCase({ expected_output_schema: INVOICE_SCHEMA });

Deno.test("output_valid fails a response cut at the output cap", async (t) => {
  await t.step("finish_reason length", () => {
    assert.deepEqual(
      outputValid.evaluate(input(plain, { finish_reason: "length", max_tokens: 64, output_tokens: 30 })),
      {
        value: false,
        detail: "cut at output cap (64 tokens)",
      },
    );
  });
  await t.step("stop, but as many tokens as the cap", () => {
    const r = outputValid.evaluate(input(plain, { max_tokens: 64, output_tokens: 64 }));
    assert.deepEqual(r, { value: false, detail: "cut at output cap (64 tokens)" });
  });
  await t.step("one token under the cap passes", () => {
    assert.equal(outputValid.evaluate(input(plain, { max_tokens: 64, output_tokens: 63 })).value, true);
  });
});

Deno.test("output_valid requires the last round to stop", async (t) => {
  await t.step("tool_calls on the last round", () => {
    assert.deepEqual(outputValid.evaluate(input(plain, { finish_reason: "tool_calls" })), {
      value: false,
      detail: "incomplete: finish_reason tool_calls",
    });
  });
  await t.step("content_filter", () => {
    assert.equal(outputValid.evaluate(input(plain, { finish_reason: "content_filter" })).value, false);
  });
  await t.step("no finish_reason", () => {
    assert.deepEqual(outputValid.evaluate(input(plain, { finish_reason: null })), {
      value: false,
      detail: "incomplete: no finish_reason",
    });
  });
});

Deno.test("output_valid fails empty or whitespace-only text", () => {
  assert.deepEqual(outputValid.evaluate(input(plain, { text: "" })), { value: false, detail: "empty output" });
  assert.deepEqual(outputValid.evaluate(input(plain, { text: " \t\n" })), { value: false, detail: "empty output" });
});

Deno.test("output_valid parses strictly as JSON when the case has a schema", async (t) => {
  await t.step("raw JSON, whitespace around it allowed", () => {
    assert.equal(outputValid.evaluate(input(json, { text: '\n {"total": 1} \n' })).value, true);
  });
  await t.step("valid JSON that breaks the schema is still valid output (schema_ok judges it)", () => {
    assert.equal(outputValid.evaluate(input(json, { text: "[1,2]" })).value, true);
  });
  for (
    const [name, text] of [
      ["code fence", '```json\n{"total": 1}\n```'],
      ["prose before", 'Here it is: {"total": 1}'],
      ["trailing comma", '{"total": 1,}'],
      ["truncated", '{"total": 1'],
    ]
  ) {
    await t.step(`${name} fails`, () => {
      const r = outputValid.evaluate(input(json, { text: text! }));
      assert.equal(r.value, false);
      assert.match(r.detail!, /^not JSON: /);
    });
  }
  await t.step("plain text is fine for a case without a schema", () => {
    assert.equal(outputValid.evaluate(input(plain, { text: "not { json" })).value, true);
  });
});
