import assert from "node:assert/strict";
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import { loadJsonFile, ONE_SHOT_MAX_CHARS, oneShot, parseWith } from "../../schema/load.ts";

/** Runs `fn` with the `Function` constructor counting its calls (zod's compiled fast path is made with it). */
async function countingCompiles<T>(fn: () => T | Promise<T>): Promise<{ value: T; compiles: number }> {
  const real = globalThis.Function;
  let compiles = 0;
  const counting = new Proxy(real, {
    construct(target, args) {
      compiles++;
      return Reflect.construct(target, args);
    },
  });
  globalThis.Function = counting;
  try {
    const value = await fn();
    return { value, compiles };
  } finally {
    globalThis.Function = real;
  }
}

/** A schema no test has parsed yet: zod compiles an object schema's fast path on its first parse. */
const freshSchema = () =>
  z.object({
    name: z.string(),
    rate: z.number().min(0).default(1),
    stages: z.array(z.object({ kind: z.enum(["warmup", "steady"]), s: z.number() })),
  });
const value = { name: "a", stages: [{ kind: "warmup", s: 1 }, { kind: "steady", s: 5 }], extra: true };

Deno.test("a one-shot parse compiles nothing and gives what the compiled parse gives", async () => {
  // Built outside the count: zod's first schema asks once whether `new Function` is allowed.
  const a = freshSchema(), b = freshSchema();
  const once = await countingCompiles(() => parseWith(a, value, "f.json", "plan", { once: true }));
  assert.equal(once.compiles, 0);
  // The default: zod compiles the object schemas (the outer and the stage's) on their first parse.
  const compiled = await countingCompiles(() => parseWith(b, value, "f.json", "plan"));
  assert.ok(compiled.compiles >= 1, `compiles: ${compiled.compiles}`);
  assert.deepEqual(once.value, compiled.value);
  assert.deepEqual(once.value, { name: "a", rate: 1, stages: value.stages });
  // zod writes into the options it is given: each call has its own.
  assert.notEqual(oneShot(), oneShot());
});

Deno.test("a one-shot parse refuses what the compiled one refuses, with the same issues", () => {
  const bad = { name: 3, stages: [{ kind: "cooldown", s: "x" }] };
  const issues = (once: boolean) => {
    try {
      parseWith(freshSchema(), bad, "f.json", "plan", { once });
    } catch (e) {
      assert.ok(e instanceof InputError);
      return e.problems;
    }
    assert.fail("not refused");
  };
  assert.deepEqual(issues(true), issues(false));
  assert.equal(issues(true).length, 3);
});

Deno.test("loadJsonFile parses a small file one-shot and a large one compiled", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const small = `${dir}/small.json`;
    Deno.writeTextFileSync(small, JSON.stringify(value));
    const a = freshSchema(), b = freshSchema();
    const once = await countingCompiles(() => loadJsonFile(small, a, "plan"));
    assert.equal(once.compiles, 0);
    const large = `${dir}/large.json`;
    const many = { ...value, stages: Array(Math.ceil(ONE_SHOT_MAX_CHARS / 20)).fill({ kind: "steady", s: 5 }) };
    Deno.writeTextFileSync(large, JSON.stringify(many));
    assert.ok(Deno.statSync(large).size >= ONE_SHOT_MAX_CHARS);
    const compiled = await countingCompiles(() => loadJsonFile(large, b, "plan"));
    assert.equal(compiled.value.stages.length, many.stages.length);
    assert.ok(compiled.compiles >= 1, `compiles: ${compiled.compiles}`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
