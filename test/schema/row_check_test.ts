import assert from "node:assert/strict";
import { z } from "zod";
import { mulberry32 } from "../../lib/prng.ts";
import { AttemptRow, PhaseRow, RequestRow, ServerRow, ToolRow } from "../../schema/events.ts";
import { compileRowCheck } from "../../schema/row_check.ts";
import { exampleAttemptRow, examplePhaseRow, exampleRequestRow, exampleToolRow } from "../../testing/task_rows.ts";

const SERVER_ROW = {
  run_id: "r",
  t_ms: 1000,
  route: "a",
  queue_len: 0,
  oldest_queued_ms: 0,
  running: 1,
  replicas: 1,
  replicas_warming: 0,
  shed: 0,
  rate_limited: 0,
  errors: 0,
  admitted: 1,
  finished: 1,
  kv_tokens: 10,
};

const TABLES: [string, z.ZodObject, Record<string, unknown>][] = [
  ["requests", RequestRow, exampleRequestRow()],
  ["attempts", AttemptRow, exampleAttemptRow()],
  ["tools", ToolRow, exampleToolRow()],
  ["phases", PhaseRow, examplePhaseRow()],
  ["server", ServerRow, SERVER_ROW],
];

/** Values that sit on every edge the row schemas draw: types, finiteness, integers, signs, lengths, enum members. */
const POOL: unknown[] = [
  null,
  undefined,
  NaN,
  Infinity,
  -Infinity,
  -1,
  -0,
  0,
  0.5,
  1,
  -2.5,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  1e300,
  "",
  "x",
  "ok",
  "aborted",
  "service",
  "page",
  "usage",
  "not-an-outcome",
  true,
  false,
  {},
  [],
  [1],
  10n,
];

Deno.test("every row schema of the contract compiles", () => {
  for (const [name, schema, example] of TABLES) {
    const check = compileRowCheck(schema);
    assert.equal(schema.safeParse(example).success, true, `${name}: the example is a valid row`);
    assert.equal(check(example), true, name);
  }
});

Deno.test("the compiled check agrees with zod on rows broken at random: values, missing and extra keys", () => {
  const rnd = mulberry32(17);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  for (const [name, schema, example] of TABLES) {
    const check = compileRowCheck(schema);
    const keys = Object.keys(example);
    let passed = 0;
    for (let k = 0; k < 4000; k++) {
      const row: Record<string, unknown> = { ...example };
      const edits = 1 + Math.floor(rnd() * 3);
      for (let e = 0; e < edits; e++) {
        const r = rnd();
        if (r < 0.05) delete row[pick(keys)];
        else if (r < 0.1) row[pick(["extra", "Route", "__proto_x"])] = pick(POOL);
        else if (r < 0.55) row[pick(keys)] = pick(POOL);
        else row[pick(keys)] = example[pick(keys)]; // another column's valid value: a type that may or may not fit
      }
      const zodOk = schema.safeParse(row).success;
      if (zodOk) passed++;
      assert.equal(
        check(row),
        zodOk,
        `${name}: ${JSON.stringify(row, (_k, v) => typeof v === "bigint" ? `${v}n` : v)}`,
      );
    }
    // Both verdicts occur, so the agreement is not one-sided.
    assert.ok(passed > 100 && passed < 3900, `${name}: ${passed} of 4000 rows valid`);
  }
  for (const v of [null, undefined, 1, "row", [], [exampleToolRow()]]) {
    assert.equal(compileRowCheck(ToolRow)(v), ToolRow.safeParse(v).success, String(v));
  }
});

Deno.test("a schema with a zod feature the compiler does not know is refused, naming the column", () => {
  assert.throws(() => compileRowCheck(z.object({ a: z.string().email() }).strict()), /a: the string check/);
  assert.throws(() => compileRowCheck(z.object({ a: z.number().multipleOf(2) }).strict()), /a: the number check/);
  assert.throws(() => compileRowCheck(z.object({ a: z.date() }).strict()), /a: zod type date/);
  assert.throws(() => compileRowCheck(z.object({ a: z.string() })), /not strict/);
});
