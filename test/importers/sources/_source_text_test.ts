import assert from "node:assert/strict";
import { z } from "zod";
import { InputError } from "../../../schema/errors.ts";
import {
  checked,
  issuePath,
  loadSourceTexts,
  parseJson,
  parseYaml,
  secondsToMs,
  sourceText,
} from "../../../importers/sources/_source_text.ts";

/** The InputError message `f` throws (the test fails when it throws nothing or something else). */
function refusal(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  assert.fail("expected an InputError");
}

Deno.test("sourceText() hashes the text's UTF-8 bytes", () => {
  // sha256("abc"), the FIPS 180-2 test vector
  assert.equal(sourceText("a.txt", "abc").sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

Deno.test("loadSourceTexts() names a file it cannot read", async () => {
  await assert.rejects(
    () => loadSourceTexts(["/nonexistent/x.json"]),
    (e: unknown) => e instanceof InputError && /^\/nonexistent\/x\.json: cannot read the file/.test(e.message),
  );
});

Deno.test("parseJson() names the file, line and column where the text breaks", async (t) => {
  await t.step("a file cut short: the end of its text", () => {
    // '{"a": 1,\n"b":' ends on line 2 after 4 characters → column 5
    assert.match(refusal(() => parseJson('{"a": 1,\n"b":', "f.json")).message, /^f\.json:2:5: not valid JSON/);
  });
  await t.step("a position inside one line of a larger file is moved to that line and column", () => {
    // '{"a":1,}' breaks at offset 7 (column 8 of the text); the text starts at column 10 of line 3 → 10 + 8 − 1 = 17
    const e = refusal(() => parseJson('{"a":1,}', "d.txt", { line: 3, column: 10 }));
    assert.match(e.message, /^d\.txt:3:17: not valid JSON \(Expected double-quoted property name/);
  });
  await t.step("a one-line text without a position still names its line", () => {
    assert.match(refusal(() => parseJson("hello", "r.jsonl", { line: 7 })).message, /^r\.jsonl:7: not valid JSON/);
  });
});

Deno.test("parseYaml() names the file, line and column of a syntax error", () => {
  // the quoted string opened on line 1 runs into line 2, column 1
  assert.match(refusal(() => parseYaml('a: "x\nb: 1', "r.yaml")).message, /^r\.yaml:2:1: not valid YAML/);
});

Deno.test("issuePath() renders a zod path under a prefix", () => {
  assert.equal(issuePath(["requests", 3, "start"]), "requests[3].start");
  assert.equal(issuePath(["info", "output_tokens"], "[3]"), "[3].info.output_tokens");
  assert.equal(issuePath([0], "benchmarks"), "benchmarks[0]");
  assert.equal(issuePath([]), "(top level)");
});

Deno.test("checked() lists every problem with its file and key, 20 at most, then a count", async (t) => {
  await t.step("the file, what it should be and each key", () => {
    const e = refusal(() => checked(z.object({ a: z.number(), b: z.string() }), {}, "r.json", { what: "thing" }));
    assert.equal(e.message.split("\n")[0], "r.json: not a thing");
    assert.deepEqual(e.problems.map((p) => p.split(": ").slice(0, 2).join(": ")), ["r.json: a", "r.json: b"]);
  });
  await t.step("25 bad items: 20 listed under the prefix, then 25 − 20 = 5 counted", () => {
    const e = refusal(() => checked(z.array(z.number()), Array(25).fill("x"), "r.json", { prefix: "rows" }));
    assert.equal(e.message.split("\n")[0], "r.json: does not have the expected shape");
    assert.equal(e.problems.length, 21);
    assert.match(e.problems[0]!, /^r\.json: rows\[0\]: /);
    assert.equal(e.problems[20], "... and 5 more problems");
  });
  await t.step("a valid value comes back parsed", () => {
    assert.deepEqual(checked(z.object({ a: z.number() }), { a: 1 }, "r.json"), { a: 1 });
  });
});

Deno.test("secondsToMs() turns epoch seconds into ms and keeps null", () => {
  assert.equal(secondsToMs(1.5), 1500); // 1.5 s × 1000
  assert.equal(secondsToMs(null), null);
  assert.equal(secondsToMs(undefined), null);
});
