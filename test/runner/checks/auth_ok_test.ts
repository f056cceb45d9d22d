import assert from "node:assert/strict";
import { authOk } from "../../../runner/checks/auth_ok.ts";
import { call, input, makeCase, ORDER_TOOLS } from "./_cases.ts";

const orders = makeCase({ ...ORDER_TOOLS });

function judge(...calls: ReturnType<typeof call>[]) {
  return authOk.evaluate(input(orders, { tool_calls: calls }));
}

Deno.test("auth_ok is null with no tools and no calls, true with tools but no calls", () => {
  assert.deepEqual(authOk.evaluate(input(makeCase())), { value: null, detail: null });
  assert.deepEqual(authOk.evaluate(input(orders)), { value: true, detail: null });
});

Deno.test("auth_ok passes calls within the permissions", async (t) => {
  await t.step("allowed scalar values", () => {
    assert.equal(judge(call("get_order", '{"order_id":"A1"}'), call("refund", '{"order_id":"A1"}')).value, true);
  });
  await t.step("allowed array and object values by deep equality (key order ignored)", () => {
    const r = judge(
      call("get_order", '{"order_id":"A2","fields":["status","eta"]}'),
      call("refund", '{"order_id":"A1","amount":{"currency":"EUR","value":10}}'),
    );
    assert.deepEqual(r, { value: true, detail: null });
  });
  await t.step("no arguments at all", () => assert.equal(judge(call("get_order", "{}")).value, true));
});

Deno.test("auth_ok fails the first offending call and names it", async (t) => {
  const cases: [string, ReturnType<typeof call>[], string][] = [
    [
      "tool not permitted",
      [call("get_order", '{"order_id":"A1"}'), call("delete_order", "{}")],
      "call 2 (delete_order): tool not permitted",
    ],
    [
      "argument not listed",
      [call("get_order", '{"order_id":"A1","admin":true}')],
      "call 1 (get_order): argument admin is not allowed",
    ],
    [
      "value not allowed",
      [call("refund", '{"order_id":"A2"}')],
      'call 1 (refund): argument order_id = "A2" is not an allowed value',
    ],
    [
      "object value differs",
      [call("refund", '{"amount":{"value":100,"currency":"EUR"}}')],
      'call 1 (refund): argument amount = {"value":100,"currency":"EUR"} is not an allowed value',
    ],
    [
      "array order matters",
      [call("get_order", '{"fields":["eta","status"]}')],
      'call 1 (get_order): argument fields = ["eta","status"] is not an allowed value',
    ],
    [
      "unparseable arguments",
      [call("get_order", '{"order_id":')],
      "call 1 (get_order): arguments are not a JSON object",
    ],
    [
      "prototype name is not a permission",
      [call("get_order", '{"constructor":"A1"}')],
      "call 1 (get_order): argument constructor is not allowed",
    ],
  ];
  for (const [name, calls, detail] of cases) {
    await t.step(name, () => assert.deepEqual(judge(...calls), { value: false, detail }));
  }
});

Deno.test("auth_ok fails any tool call on a case that permits none", async (t) => {
  await t.step("case without tools", () => {
    const r = authOk.evaluate(input(makeCase(), { tool_calls: [call("get_order", "{}")] }));
    assert.deepEqual(r, { value: false, detail: "call 1 (get_order): no tool is permitted for this case" });
  });
  await t.step("case with tools but no permissions", () => {
    const c = makeCase({ tools: ORDER_TOOLS.tools });
    assert.equal(authOk.evaluate(input(c, { tool_calls: [call("get_order", "{}")] })).value, false);
  });
});
