import assert from "node:assert/strict";
import { qualityOk } from "../../../runner/checks/quality_ok.ts";
import { call, input, makeCase } from "./_cases.ts";

function judge(quality_check: Record<string, unknown>, text: string, over: Parameters<typeof input>[1] = {}) {
  return qualityOk.evaluate(input(makeCase({ quality_check }), { text, ...over }));
}

Deno.test("quality_ok exact compares normalized text unless told not to", async (t) => {
  await t.step("whitespace and case are normalized by default", () => {
    assert.equal(judge({ kind: "exact", value: "The  Eiffel\nTower" }, "  the eiffel tower\t").value, true);
  });
  await t.step("different words fail with both texts", () => {
    assert.deepEqual(judge({ kind: "exact", value: "Paris" }, "Paris, France"), {
      value: false,
      detail: 'expected "Paris", got "Paris, France"',
    });
  });
  await t.step("normalize false is byte equality", () => {
    assert.equal(judge({ kind: "exact", value: "Paris", normalize: false }, "paris").value, false);
    assert.equal(judge({ kind: "exact", value: "Paris", normalize: false }, "Paris").value, true);
  });
});

Deno.test("quality_ok contains checks all or any values, with or without case", async (t) => {
  await t.step("all present, any case", () => {
    assert.equal(judge({ kind: "contains", values: ["Refund", "7 DAYS"] }, "refund within 7 days").value, true);
  });
  await t.step("all: the missing ones are listed", () => {
    assert.deepEqual(judge({ kind: "contains", values: ["refund", "receipt", "7 days"] }, "A refund."), {
      value: false,
      detail: "missing: receipt, 7 days",
    });
  });
  await t.step("any: one is enough, none fails", () => {
    const q = { kind: "contains", values: ["yes", "correct"], all: false };
    assert.equal(judge(q, "That is correct.").value, true);
    assert.deepEqual(judge(q, "No."), { value: false, detail: "none of: yes, correct" });
  });
  await t.step("case-sensitive when asked", () => {
    const q = { kind: "contains", values: ["SKU-1"], case_insensitive: false };
    assert.equal(judge(q, "sku-1").value, false);
    assert.equal(judge(q, "SKU-1").value, true);
  });
});

Deno.test("quality_ok regex uses the pattern with its flags", async (t) => {
  await t.step("default flag i", () => {
    assert.equal(judge({ kind: "regex", pattern: "^order [A-Z]\\d+ shipped" }, "ORDER A12 shipped today").value, true);
  });
  await t.step("no match fails and shows the pattern", () => {
    assert.deepEqual(judge({ kind: "regex", pattern: "\\d{4}", flags: "" }, "no digits"), {
      value: false,
      detail: "no match for /\\d{4}/",
    });
  });
  await t.step("a cached /g regex gives the same answer every time", () => {
    const q = { kind: "regex", pattern: "ok", flags: "g" };
    for (let i = 0; i < 3; i++) assert.equal(judge(q, "it is ok").value, true);
  });
  await t.step("prepare reports a pattern that does not compile", () => {
    const bad = makeCase({ case_id: "re-bad", quality_check: { kind: "regex", pattern: "(unclosed" } });
    const problems = qualityOk.prepare!([makeCase(), bad]);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^case re-bad: quality_check.pattern: /);
  });
});

Deno.test("quality_ok json_fields compares dotted paths by deep equality", async (t) => {
  const q = {
    kind: "json_fields",
    fields: { "a.b": 3, "items.1.sku": "B", tags: ["x", "y"], meta: { k: 1, j: [true, null] } },
  };
  const good = { a: { b: 3 }, items: [{ sku: "A" }, { sku: "B" }], tags: ["x", "y"], meta: { j: [true, null], k: 1 } };
  await t.step("all fields equal (object key order ignored)", () => {
    assert.deepEqual(judge(q, JSON.stringify(good)), { value: true, detail: null });
  });
  await t.step("wrong and missing fields are named with both values", () => {
    const bad = { ...good, a: { b: 4 }, items: [{ sku: "A" }], tags: ["y", "x"] };
    assert.deepEqual(judge(q, JSON.stringify(bad)), {
      value: false,
      detail: 'field a.b: expected 3, got 4; field items.1.sku: expected "B", got (missing); ' +
        'field tags: expected ["x","y"], got ["y","x"]',
    });
  });
  await t.step('1 and "1" differ', () => {
    assert.equal(judge({ kind: "json_fields", fields: { n: 1 } }, '{"n":"1"}').value, false);
  });
  await t.step("an array never equals an object with index keys", () => {
    assert.equal(judge({ kind: "json_fields", fields: { v: { "0": "x" } } }, '{"v":["x"]}').value, false);
    assert.equal(judge({ kind: "json_fields", fields: { v: ["x"] } }, '{"v":{"0":"x"}}').value, false);
  });
  await t.step("a null field is matched, a missing one is not", () => {
    const qn = { kind: "json_fields", fields: { n: null } };
    assert.equal(judge(qn, '{"n":null}').value, true);
    assert.equal(judge(qn, "{}").value, false);
  });
  await t.step("unparseable output fails", () => {
    const r = judge(q, "a: 3");
    assert.equal(r.value, false);
    assert.match(r.detail!, /^not JSON: /);
  });
});

Deno.test("quality_ok tool_sequence compares the tools called, in order", async (t) => {
  const q = { kind: "tool_sequence", tools: ["search", "get_order"] };
  await t.step("same order passes", () => {
    const tool_calls = [call("search", "{}"), call("get_order", '{"id":1}')];
    assert.equal(judge(q, "done", { tool_calls }).value, true);
  });
  await t.step("missing call", () => {
    assert.deepEqual(judge(q, "done", { tool_calls: [call("search", "{}")] }), {
      value: false,
      detail: "tools: expected [search,get_order] got [search]",
    });
  });
  await t.step("wrong order and extra calls fail", () => {
    assert.equal(judge(q, "", { tool_calls: [call("get_order", "{}"), call("search", "{}")] }).value, false);
    const extra = [call("search", "{}"), call("get_order", "{}"), call("search", "{}")];
    assert.equal(judge(q, "", { tool_calls: extra }).value, false);
  });
});

Deno.test("quality_ok does not apply to a case whose quality check is not_applicable: null, never failed", () => {
  const q = { kind: "not_applicable", reason: "random weights" };
  assert.equal(qualityOk.applies(makeCase({ quality_check: q })), false);
  assert.deepEqual(judge(q, "any noise at all"), { value: null, detail: null });
  assert.equal(qualityOk.applies(makeCase({ quality_check: { kind: "exact", value: "x" } })), true);
});
