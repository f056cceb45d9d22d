import assert from "node:assert/strict";
import { COLUMNS, TABLES } from "../../schema/events.ts";
import { columnSpecs, requiredColumns } from "../../schema/column_kinds.ts";

Deno.test("columnSpecs follows COLUMNS and reads each kind from the zod schema", async (t) => {
  await t.step("every table, every column, in file order", () => {
    for (const table of TABLES) assert.deepEqual(columnSpecs(table).map((c) => c.name), COLUMNS[table]);
  });
  await t.step("known columns get the kind of their schema", () => {
    const req = new Map(columnSpecs("requests").map((c) => [c.name, c]));
    assert.deepEqual(req.get("priority"), { name: "priority", kind: "int", nullable: false });
    assert.deepEqual(req.get("http_status"), { name: "http_status", kind: "int", nullable: true });
    assert.deepEqual(req.get("tool_ms"), { name: "tool_ms", kind: "float", nullable: false });
    assert.deepEqual(req.get("send_lag_ms"), { name: "send_lag_ms", kind: "float", nullable: true });
    assert.deepEqual(req.get("outcome"), { name: "outcome", kind: "string", nullable: false });
    assert.deepEqual(req.get("auth_ok"), { name: "auth_ok", kind: "boolean", nullable: true });
    const att = new Map(columnSpecs("attempts").map((c) => [c.name, c]));
    assert.deepEqual(att.get("token_source"), { name: "token_source", kind: "string", nullable: true });
    const tools = new Map(columnSpecs("tools").map((c) => [c.name, c]));
    assert.deepEqual(tools.get("ok"), { name: "ok", kind: "boolean", nullable: false });
  });
  await t.step("requiredColumns lists the columns whose schema is not nullable, in file order", () => {
    // tools: request_id, round, tool, started_ms, ended_ms, ok are required; error_kind is nullable.
    assert.deepEqual(requiredColumns("tools"), ["request_id", "round", "tool", "started_ms", "ended_ms", "ok"]);
  });
});
