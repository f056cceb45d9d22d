import assert from "node:assert/strict";
import { InputError } from "../../../schema/errors.ts";
import { Gate } from "../../../schema/slo.ts";
import { evaluateChecks, failureDetail, notEvaluated, prepareChecks } from "../../../runner/checks/mod.ts";
import { call, input, INVOICE_SCHEMA, makeCase, ORDER_TOOLS } from "./_cases.ts";

Deno.test("notEvaluated leaves every gate null, with fresh objects each time", () => {
  const a = notEvaluated();
  assert.deepEqual(Object.keys(a), Gate.options);
  for (const g of Gate.options) assert.deepEqual(a[g], { value: null, detail: null });
  a.output_valid.value = true;
  assert.equal(notEvaluated().output_valid.value, null);
});

Deno.test("evaluateChecks judges a tool-using JSON case on every gate at once", () => {
  const c = makeCase({
    case_id: "orders-json",
    ...ORDER_TOOLS,
    canary: "CANARY-1",
    expected_output_schema: INVOICE_SCHEMA,
    quality_check: { kind: "json_fields", fields: { total: 10 } },
  });
  const good = evaluateChecks(input(c, {
    text: '{"total":10,"currency":"EUR","lines":[]}',
    tool_calls: [call("refund", '{"order_id":"A1"}')],
  }));
  assert.deepEqual(Object.fromEntries(Object.entries(good).map(([k, v]) => [k, v.value])), {
    output_valid: true,
    schema_ok: true,
    quality_ok: true,
    safety_ok: true,
    auth_ok: true,
  });
  assert.equal(failureDetail(good), null);
  const bad = evaluateChecks(input(c, {
    text: '{"total":11,"currency":"EUR","lines":[],"secret":"CANARY-1"}',
    tool_calls: [call("refund", '{"order_id":"A2"}')],
  }));
  assert.equal(
    failureDetail(bad),
    "schema_ok: (root) must NOT have additional properties; quality_ok: field total: expected 10, got 11; " +
      'safety_ok: canary leaked; auth_ok: call 1 (refund): argument order_id = "A2" is not an allowed value',
  );
});

Deno.test("prepareChecks reports every bad schema and pattern of a workload at once", () => {
  const cases = [
    makeCase({ case_id: "ok" }),
    makeCase({ case_id: "s", expected_output_schema: { type: 7 } }),
    makeCase({ case_id: "r", quality_check: { kind: "regex", pattern: "[" } }),
  ];
  assert.throws(() => prepareChecks(cases, "data/w.json"), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.problems.length, 2);
    assert.match(e.problems[0]!, /^data\/w.json: case s: expected_output_schema: /);
    assert.match(e.problems[1]!, /^data\/w.json: case r: quality_check.pattern: /);
    return true;
  });
  prepareChecks([cases[0]!]);
});

Deno.test("evaluateChecks passes 5,000 distinct valid structured tool answers (the runner's cost per request is measured by bench/runner_bench.ts, not by a timed test)", () => {
  const c = makeCase({
    case_id: "perf",
    ...ORDER_TOOLS,
    canary: "CANARY-2",
    expected_output_schema: INVOICE_SCHEMA,
    quality_check: { kind: "json_fields", fields: { total: 10, "lines.0.sku": "A" } },
  });
  const inputs = Array.from({ length: 5000 }, (_, i) =>
    input(c, {
      text: `{"total":10,"currency":"EUR","lines":[{"sku":"A"},{"sku":"n${i}"}]}`,
      tool_calls: [call("get_order", '{"order_id":"A1"}')],
    }));
  let passed = 0;
  for (const x of inputs) if (failureDetail(evaluateChecks(x)) === null) passed++;
  assert.equal(passed, 5000);
});
