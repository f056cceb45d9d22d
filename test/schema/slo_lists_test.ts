import assert from "node:assert/strict";
import { FAILURE_REASONS, FailureReason, Gate, GATES } from "../../schema/slo.ts";
import { FAILURE_ORDER, GATE_ORDER } from "../../analysis/goodput/classify.ts";

Deno.test("gates and failure reasons come from one list each", async (t) => {
  await t.step("the Gate enum accepts exactly GATES, in order", () => {
    assert.deepEqual(Gate.options, ["output_valid", "schema_ok", "quality_ok", "safety_ok", "auth_ok"]);
    assert.equal(Gate.safeParse("latency_ok").success, false);
  });
  await t.step("failure reasons: outcomes, mode, latency, then one gate_ reason per gate in gate order", () => {
    assert.deepEqual(FAILURE_REASONS, [
      "rejected",
      "client_shed",
      "not_sent",
      "timeout",
      "error",
      "undeclared_mode",
      "late_e2e",
      "late_ttft",
      "slow_tpot",
      "gate_output_valid",
      "gate_schema_ok",
      "gate_quality_ok",
      "gate_safety_ok",
      "gate_auth_ok",
    ]);
    assert.deepEqual(FailureReason.options, FAILURE_REASONS);
    assert.equal(FailureReason.safeParse("gate_latency_ok").success, false);
  });
  await t.step("the analysis's attribution order is the contract's list itself", () => {
    assert.equal(GATE_ORDER, GATES);
    assert.equal(FAILURE_ORDER, FAILURE_REASONS);
  });
});
