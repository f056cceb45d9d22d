/**
 * `deno task judge` on bad flags and bad run folders: exit 2, `error: …` naming the flag or the file and field, then
 * the pointer to `--help`; no stack trace, nothing on stdout, nothing called.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runJudge } from "../../../runner/judge/judge_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { type BadInputCase, editJson, type Good, runBadInputSuite } from "../../support/bad_input.ts";
import { copyRun, judgeOptions, savedOutputRun } from "../../support/judge_fixture.ts";

const TARGET = "http://127.0.0.1:9";
const judge = (...extra: string[]) => (_d: string, g: Good) => [g.run, "--target", TARGET, "--model", "m", ...extra];

const CASES: BadInputCase[] = [
  {
    name: "no RUN folder and the required flags missing, all named",
    cli: "judge",
    args: () => [],
    expect: ["expected one RUN folder, got 0", "--target URL is required", "--model M is required"],
  },
  { name: "--rate fast", cli: "judge", args: judge("--rate", "fast"), expect: ["--rate: expected a rate", '"fast"'] },
  { name: "--rate 0/s", cli: "judge", args: judge("--rate", "0/s"), expect: ["--rate: expected a rate above 0"] },
  {
    name: "a model that cannot name a source",
    cli: "judge",
    args: (_d, g) => [g.run, "--target", TARGET, "--model", "my judge"],
    expect: ["--model:", "no spaces or commas"],
  },
  { name: "--target not a URL", cli: "judge", args: judge("--target", "nowhere"), expect: ["--target: not a URL"] },
  {
    name: "--target with credentials",
    cli: "judge",
    args: judge("--target", "http://u:p@127.0.0.1:9"),
    expect: ["--target: credentials in the URL are refused"],
  },
  { name: "--retries -1", cli: "judge", args: judge("--retries", "-1"), expect: ["--retries: expected an integer"] },
  { name: "--format xml", cli: "judge", args: judge("--format", "xml"), expect: ["--format: expected csv or parquet"] },
  {
    name: "--api-key-env given the key itself",
    cli: "judge",
    args: judge("--api-key-env", "sk-proj-abc123"),
    expect: ["--api-key-env:", "not an environment variable name"],
  },
  {
    name: "a run without saved outputs",
    cli: "judge",
    args: judge(),
    expect: ["outputs.jsonl", "--save-outputs"],
  },
  {
    name: "a folder without run.json",
    cli: "judge",
    args: (d) => [d, "--target", TARGET, "--model", "m"],
    expect: ["run.json"],
  },
];

Deno.test("deno task judge: bad flags and run folders exit 2 naming the flag or the file", async (t) => {
  await runBadInputSuite(t, CASES);
});

Deno.test("a saved-output run whose files or rubrics changed after it is refused before any call", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "judge_bad_run_" });
  try {
    const fresh = await savedOutputRun(dir, { rps: 12 });
    let n = 0;
    const refused = async (edit: (run: string) => void, pattern: RegExp, options: { workload?: string } = {}) => {
      const run = copyRun(fresh, join(dir, `case-${n++}`));
      edit(run);
      await assert.rejects(runJudge(judgeOptions(run, TARGET, options)), (e: Error) => {
        assert.ok(e instanceof InputError, e.stack);
        assert.match(e.message, pattern);
        return true;
      });
      assert.throws(() => Deno.statSync(join(run, "quality")), Deno.errors.NotFound, "nothing written");
    };
    await t.step("a rubric the run did not freeze", () =>
      refused((run) =>
        editJson(join(run, "run.json"), (v) => {
          (v.workload as { rubric_hashes: Record<string, string> }).rubric_hashes["rag-answer"] = "0".repeat(64);
        }), /rubric rag-answer has sha256 1e65af6dcee9, the run froze 000000000000/));
    await t.step("saved outputs edited after the run", () =>
      refused(
        (run) =>
          Deno.writeTextFileSync(
            join(run, "outputs.jsonl"),
            Deno.readTextFileSync(join(run, "outputs.jsonl")).replace(/"text":"./, '"text":"X'),
          ),
        /outputs\.jsonl: sha256 is not the one run\.json files lists/,
      ));
    await t.step(
      "a workload path that does not load",
      () => refused(() => {}, /--workload .*nowhere/, { workload: join(dir, "nowhere") }),
    );
    await t.step(
      "a bad line in outputs.jsonl",
      () =>
        refused(
          (run) => Deno.writeTextFileSync(join(run, "outputs.jsonl"), "{}\n", { append: true }),
          /outputs\.jsonl: line \d+: request_id/,
        ),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
