import assert from "node:assert/strict";
import { COLUMNS, TABLES } from "../../schema/events.ts";
import { columnSpecs, numericBounds } from "../../schema/column_kinds.ts";
import { csvSchema, parquetMetadata, timeUnits } from "../../schema/log_metadata.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../../schema/version.ts";

const id = { run_id: "run-7", epoch_iso: "2026-03-04T05:06:07.089Z" };

Deno.test("every log file describes itself: contract, table, run_id, epoch and time units", async (t) => {
  await t.step("Parquet key-value metadata: prefixed keys, string values, units as JSON", () => {
    for (const table of TABLES) {
      const kv = Object.fromEntries(parquetMetadata(table, id).map((e) => [e.key, e.value]));
      assert.deepEqual(Object.keys(kv), [
        "accepted_goodput.schema_version",
        "accepted_goodput.contract",
        "accepted_goodput.table",
        "accepted_goodput.run_id",
        "accepted_goodput.epoch_iso",
        "accepted_goodput.time_units",
      ]);
      assert.equal(kv["accepted_goodput.schema_version"], String(SCHEMA_VERSION));
      assert.equal(kv["accepted_goodput.contract"], `${SCHEMA_VERSION}.${SCHEMA_MINOR}`);
      assert.equal(kv["accepted_goodput.table"], table);
      assert.equal(kv["accepted_goodput.run_id"], "run-7");
      assert.equal(kv["accepted_goodput.epoch_iso"], "2026-03-04T05:06:07.089Z");
      assert.deepEqual(JSON.parse(kv["accepted_goodput.time_units"]!), timeUnits(table));
    }
  });
  await t.step("time units: every *_ms column, an instant or a duration", () => {
    assert.deepEqual(timeUnits("server"), {
      t_ms: "ms since epoch_iso",
      oldest_queued_ms: "ms",
      t_epoch_ms: "ms since 1970-01-01T00:00:00Z",
    });
    for (const table of TABLES) {
      assert.deepEqual(Object.keys(timeUnits(table)), COLUMNS[table].filter((c) => c.endsWith("_ms")), table);
    }
  });
  await t.step("the CSV sidecar has one field per column, in file order, typed by the contract", () => {
    for (const table of TABLES) {
      const s = csvSchema(table, id);
      assert.equal(s.table, table);
      assert.equal(s.run_id, "run-7");
      assert.deepEqual(s.fields.map((f) => f.name), COLUMNS[table]);
      for (const [k, map] of [["pandas", s.pandas_dtype], ["duckdb", s.duckdb_columns], ["polars", s.polars_schema]]) {
        assert.deepEqual(Object.keys(map as object), COLUMNS[table], `${table} ${k}`);
      }
      for (const [i, c] of columnSpecs(table).entries()) {
        const f = s.fields[i]!;
        assert.equal(f.constraints.required, !c.nullable, `${table}.${c.name}`);
        const bound = numericBounds(table).find((b) => b.name === c.name)?.min ?? undefined;
        assert.equal(f.constraints.minimum, bound ?? undefined, `${table}.${c.name}`);
        assert.equal(f.unit ?? null, c.unit, `${table}.${c.name}`);
      }
    }
  });
  await t.step("the sidecar states the contract's minimums: counts, lags and gaps at 0, instants none", () => {
    const min = (table: "requests" | "attempts", c: string) =>
      csvSchema(table, id).fields.find((f) => f.name === c)!.constraints.minimum;
    assert.equal(min("requests", "output_tokens"), 0);
    assert.equal(min("requests", "send_lag_ms"), 0);
    assert.equal(min("attempts", "itl_max_ms"), 0);
    assert.equal(min("attempts", "retry_after_ms"), 0);
    assert.equal(min("requests", "scheduled_ms"), undefined);
    assert.equal(min("requests", "priority"), undefined);
    assert.equal(min("requests", "request_id"), undefined);
  });
  await t.step("each kind maps to one type per reader: integers nullable in pandas, never float", () => {
    const s = csvSchema("requests", id);
    const row = (c: string) => [
      s.fields.find((f) => f.name === c)!.type,
      s.pandas_dtype[c],
      s.duckdb_columns[c],
      s.polars_schema[c],
    ];
    assert.deepEqual(row("http_status"), ["integer", "Int64", "BIGINT", "Int64"]);
    assert.deepEqual(row("scheduled_ms"), ["number", "Float64", "DOUBLE", "Float64"]);
    assert.deepEqual(row("schema_ok"), ["boolean", "boolean", "BOOLEAN", "Boolean"]);
    assert.deepEqual(row("outcome"), ["string", "string", "VARCHAR", "String"]);
    assert.deepEqual(s.missingValues, [""]);
  });
});
