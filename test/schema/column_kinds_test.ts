import assert from "node:assert/strict";
import { COLUMNS, TABLES } from "../../schema/events.ts";
import { columnSpecs, requiredColumns } from "../../schema/column_kinds.ts";

Deno.test("columnSpecs follows COLUMNS and reads each kind from the zod schema", async (t) => {
  await t.step("every table, every column, in file order", () => {
    for (const table of TABLES) assert.deepEqual(columnSpecs(table).map((c) => c.name), COLUMNS[table]);
  });
  await t.step("known columns get the kind of their schema", () => {
    const req = new Map(columnSpecs("requests").map((c) => [c.name, c]));
    assert.deepEqual(req.get("priority"), { name: "priority", kind: "int", nullable: false, unit: null });
    assert.deepEqual(req.get("http_status"), { name: "http_status", kind: "int", nullable: true, unit: null });
    assert.deepEqual(req.get("outcome"), { name: "outcome", kind: "string", nullable: false, unit: null });
    assert.deepEqual(req.get("auth_ok"), { name: "auth_ok", kind: "boolean", nullable: true, unit: null });
    const att = new Map(columnSpecs("attempts").map((c) => [c.name, c]));
    assert.deepEqual(att.get("run_id"), { name: "run_id", kind: "string", nullable: false, unit: null });
    assert.deepEqual(att.get("token_source"), { name: "token_source", kind: "string", nullable: true, unit: null });
    const tools = new Map(columnSpecs("tools").map((c) => [c.name, c]));
    assert.deepEqual(tools.get("ok"), { name: "ok", kind: "boolean", nullable: false, unit: null });
  });
  await t.step("time columns carry their unit: an instant since epoch_iso, or a duration", () => {
    const req = new Map(columnSpecs("requests").map((c) => [c.name, c]));
    const instant = "ms since epoch_iso";
    assert.deepEqual(req.get("completed_ms"), { name: "completed_ms", kind: "float", nullable: true, unit: instant });
    assert.deepEqual(req.get("tool_ms"), { name: "tool_ms", kind: "float", nullable: false, unit: "ms" });
    assert.deepEqual(req.get("send_lag_ms"), { name: "send_lag_ms", kind: "float", nullable: true, unit: "ms" });
    // Every *_ms column of every table has a unit, and no other column has one.
    for (const table of TABLES) {
      for (const c of columnSpecs(table)) assert.equal(c.unit !== null, c.name.endsWith("_ms"), `${table}.${c.name}`);
    }
    const units = (table: (typeof TABLES)[number], unit: string) =>
      columnSpecs(table).filter((c) => c.unit === unit).map((c) => c.name);
    assert.deepEqual(units("requests", instant), ["scheduled_ms", "first_sent_ms", "first_token_ms", "completed_ms"]);
    assert.deepEqual(units("attempts", instant), [
      "sent_ms",
      "headers_ms",
      "first_token_ms",
      "last_token_ms",
      "completed_ms",
    ]);
    assert.deepEqual(units("attempts", "ms"), [
      "backoff_ms",
      "itl_p50_ms",
      "itl_max_ms",
      "retry_after_ms",
      "rl_reset_requests_ms",
      "rl_reset_tokens_ms",
    ]);
    assert.deepEqual(units("tools", instant), ["started_ms", "ended_ms"]);
    assert.deepEqual(units("server", instant), ["t_ms"]);
    assert.deepEqual(units("server", "ms"), ["oldest_queued_ms"]);
  });
  await t.step("requiredColumns lists the columns whose schema is not nullable, in file order", () => {
    // tools: run_id, request_id, round, tool, started_ms, ended_ms, ok and (1.6) started_epoch_ms are required;
    // error_kind is nullable.
    assert.deepEqual(requiredColumns("tools"), [
      "run_id",
      "request_id",
      "round",
      "tool",
      "started_ms",
      "ended_ms",
      "ok",
      "started_epoch_ms",
    ]);
  });
});
