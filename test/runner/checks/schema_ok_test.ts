import assert from "node:assert/strict";
import { schemaOk } from "../../../runner/checks/schema_ok.ts";
import { input, INVOICE_SCHEMA, makeCase } from "./_cases.ts";

const invoice = makeCase({ case_id: "inv", expected_output_schema: INVOICE_SCHEMA });

Deno.test("schema_ok is null for a case without a schema", () => {
  assert.deepEqual(schemaOk.evaluate(input(makeCase(), { text: "{not json" })), { value: null, detail: null });
});

Deno.test("schema_ok validates the parsed output against the case's JSON Schema", async (t) => {
  await t.step("conforming output passes", () => {
    const text = '{"total": 12.5, "currency": "USD", "lines": [{"sku": "A"}, {"sku": "B"}]}';
    assert.deepEqual(schemaOk.evaluate(input(invoice, { text })), { value: true, detail: null });
  });
  await t.step("the detail lists the first errors with their paths", () => {
    const text = '{"total": -1, "currency": "GBP", "lines": [{"sku": 3}], "note": "x"}';
    const r = schemaOk.evaluate(input(invoice, { text }));
    assert.equal(r.value, false);
    assert.equal(
      r.detail,
      "(root) must NOT have additional properties; /total must be >= 0; /currency must be equal to one of the allowed values; and 1 more",
    );
  });
  await t.step("a missing required field is reported at the root", () => {
    const r = schemaOk.evaluate(input(invoice, { text: '{"total": 1, "currency": "EUR"}' }));
    assert.deepEqual(r, { value: false, detail: "(root) must have required property 'lines'" });
  });
  await t.step("unparseable output fails", () => {
    const r = schemaOk.evaluate(input(invoice, { text: '```json\n{"total": 1}\n```' }));
    assert.equal(r.value, false);
    assert.match(r.detail!, /^not JSON: /);
  });
});

Deno.test("schema_ok recompiles when another workload reuses a case_id with a different schema", () => {
  const a = makeCase({ case_id: "shared", expected_output_schema: { type: "object" } });
  const b = makeCase({ case_id: "shared", expected_output_schema: { type: "array" } });
  assert.equal(schemaOk.evaluate(input(a, { text: "{}" })).value, true);
  assert.equal(schemaOk.evaluate(input(b, { text: "{}" })).value, false);
  assert.equal(schemaOk.evaluate(input(b, { text: "[]" })).value, true);
});

Deno.test("schema_ok.prepare reports every schema Ajv cannot compile", () => {
  const bad = makeCase({ case_id: "bad-1", expected_output_schema: { type: "objekt" } });
  const bad2 = makeCase({ case_id: "bad-2", expected_output_schema: { $ref: "#/definitions/missing" } });
  const problems = schemaOk.prepare!([invoice, bad, makeCase(), bad2]);
  assert.equal(problems.length, 2);
  assert.match(problems[0]!, /^case bad-1: expected_output_schema: /);
  assert.match(problems[1]!, /^case bad-2: expected_output_schema: /);
  assert.deepEqual(schemaOk.prepare!([invoice]), []);
});
