import assert from "node:assert/strict";
import { commandExitCode, type CommandSpec, parseCommand, wantsHelp } from "../../lib/command.ts";
import { exitCodes, flagTable, helpText, markdownTable, synopsis } from "../../lib/command_help.ts";
import { InputError } from "../../schema/errors.ts";

const SPEC = {
  name: "tool",
  invocation: "npx deno task tool",
  summary: "does a thing",
  positionals: [{ name: "RUN", noun: "RUN folder", description: "a run folder", min: 1, max: 1 }],
  flags: {
    seed: { type: "number", arg: "N", rule: { min: 0, integer: true }, default: 1, description: "the seed" },
    headroom: { type: "number", arg: "H", rule: { min: 0, below: 1 }, description: "the headroom" },
    mode: { type: "string", arg: "M", choices: ["fast", "slow"], default: "fast", description: "the mode" },
    claim: { type: "string", arg: "FILE", required: true, description: "the claim" },
    single: { type: "string", arg: "RUN", multiple: true, description: "another run" },
    json: { type: "boolean", description: "JSON out" },
  },
  examples: ["npx deno task tool data/runs/explore --claim c.json"],
} as const satisfies CommandSpec;

Deno.test("parseCommand fills every absent flag with its default: a switch off, a repeatable flag empty", () => {
  const { values, positionals, check } = parseCommand(SPEC, ["r", "--claim", "c.json"]);
  assert.deepEqual(values, {
    seed: 1,
    headroom: undefined,
    mode: "fast",
    claim: "c.json",
    single: [],
    json: false,
  });
  assert.deepEqual(positionals, ["r"]);
  assert.deepEqual(check.problems, []);
});

Deno.test("parseCommand converts numbers, takes choices, repeats, inline values and negative numbers", () => {
  const { values, check } = parseCommand(SPEC, [
    "r",
    "--claim=c.json",
    "--seed",
    "7",
    "--headroom",
    "0.25",
    "--mode",
    "slow",
    "--single",
    "a",
    "--single=b",
    "--json",
  ]);
  assert.deepEqual(check.problems, []);
  assert.deepEqual(values, { seed: 7, headroom: 0.25, mode: "slow", claim: "c.json", single: ["a", "b"], json: true });
  // A value may start with one dash: `--seed -1` is the value -1 (then refused by its range), not a missing value.
  assert.deepEqual(parseCommand(SPEC, ["r", "--claim", "c", "--seed", "-1"]).check.problems, [
    '--seed: expected an integer ≥ 0, got "-1"',
  ]);
  // 1e20 is an integer, but not one a double holds exactly: refused as beyond the safe integers (2^53 − 1).
  assert.deepEqual(parseCommand(SPEC, ["r", "--claim", "c", "--seed", "1e20"]).check.problems, [
    '--seed: expected at most 9007199254740991, got "1e20"',
  ]);
});

Deno.test("parseCommand names every problem at once and keeps a bad flag's default", () => {
  const { values, positionals, check } = parseCommand(SPEC, [
    "--bogus",
    "x",
    "--seed",
    "1.5",
    "--mode",
    "medium",
    "--json=yes",
    "--headroom",
    "--claim",
  ]);
  assert.deepEqual(check.problems, [
    // The word after an unknown flag is taken as its value, so it is not a RUN folder too.
    "unknown flag --bogus",
    '--json is a switch and takes no value, got "yes"',
    "--headroom needs a value H (got the flag --claim; a value starting with -- is written --headroom=VALUE)",
    '--seed: expected an integer ≥ 0, got "1.5"',
    '--mode: expected fast or slow, got "medium"',
    // --claim swallowed as --headroom's value: so it is missing, named once.
    "--claim FILE is required",
    "expected one RUN folder, got 0",
  ]);
  assert.equal(values.seed, 1);
  assert.equal(values.mode, "fast");
  assert.deepEqual(positionals, []);
});

Deno.test("parseCommand: an unknown flag with an inline value does not take the next word; -- ends the flags", () => {
  const inline = parseCommand(SPEC, ["--bogus=1", "r", "--claim", "c"]);
  assert.deepEqual(inline.check.problems, ["unknown flag --bogus"]);
  assert.deepEqual(inline.positionals, ["r"]);
  const ended = parseCommand(SPEC, ["--claim", "c", "--", "--seed"]);
  assert.deepEqual(ended.positionals, ["--seed"]);
  assert.deepEqual(ended.check.problems, []);
  // A name Object.prototype has is not a flag.
  assert.deepEqual(parseCommand(SPEC, ["r", "--claim", "c", "--constructor"]).check.problems, [
    "unknown flag --constructor",
  ]);
  assert.deepEqual(parseCommand(SPEC, ["r", "--claim", "c", "-x"]).check.problems, ["unknown flag -x"]);
});

Deno.test("parseCommand counts the arguments of each group and names a word no command takes", () => {
  const counted = (min: number, max: number | undefined, n: number) => {
    const spec = {
      ...SPEC,
      flags: {},
      positionals: [{ name: "RUN", noun: "RUN folder", description: "", min, ...(max ? { max } : {}) }],
    };
    return parseCommand(spec, Array.from({ length: n }, (_, i) => `r${i}`)).check.problems;
  };
  assert.deepEqual(counted(1, 1, 2), ["expected one RUN folder, got 2"]);
  assert.deepEqual(counted(2, undefined, 1), ["expected at least 2 RUN folders, got 1"]);
  assert.deepEqual(counted(2, undefined, 5), []);
  const two = {
    ...SPEC,
    flags: {},
    positionals: [
      { name: "A", noun: "argument", description: "", min: 0, max: 1 },
      { name: "B", noun: "argument", description: "", min: 0, max: 1 },
    ],
  };
  assert.deepEqual(parseCommand(two, ["a", "b", "c"]).check.problems, ["expected at most 2 arguments, got 3"]);
  const none = { ...SPEC, flags: {}, positionals: [] };
  assert.deepEqual(parseCommand(none, ["x"]).check.problems, ['unexpected argument "x"']);
  // A pass-through command takes every word as it is.
  const through = { ...none, passthrough: "deno test" };
  assert.deepEqual(parseCommand(through, ["--filter", "x"]), {
    values: {},
    positionals: ["--filter", "x"],
    check: parseCommand(through, []).check,
  });
});

Deno.test("wantsHelp: --help or -h anywhere before --", () => {
  assert.equal(wantsHelp(["r", "--seed", "x", "-h"]), true);
  assert.equal(wantsHelp(["--help"]), true);
  assert.equal(wantsHelp(["--", "--help"]), false);
  assert.equal(wantsHelp(["--helpful"]), false);
});

Deno.test("the usage line writes required flags and argument groups as a user types them", () => {
  assert.equal(synopsis(SPEC), "npx deno task tool RUN --claim FILE [flags]");
  const many = (min: number, max?: number) => ({
    ...SPEC,
    flags: {},
    positionals: [{ name: "RUN", noun: "RUN folder", description: "", min, ...(max ? { max } : {}) }],
  });
  assert.equal(synopsis(many(1)), "npx deno task tool RUN...");
  assert.equal(synopsis(many(2)), "npx deno task tool RUN RUN...");
  assert.equal(synopsis(many(0, 1)), "npx deno task tool [RUN]");
  assert.equal(synopsis({ ...many(0), passthrough: "deno test" }), "npx deno task tool [RUN...] [ARG...]");
});

Deno.test("the help shows each flag's default, values and meaning; the flag table has the same facts", () => {
  const text = helpText(SPEC);
  assert.match(text, /\n {2}--seed N +the seed\n +values: an integer ≥ 0; default: 1\n/);
  assert.match(text, /\n {2}--headroom H +the headroom\n +values: a number in \[0, 1\); default: none\n/);
  assert.match(text, /\n {2}--mode M +the mode\n +values: fast, slow; default: fast\n/);
  assert.match(text, /\n {2}--claim FILE +the claim\n +required\n/);
  assert.match(text, /\n {2}--single RUN +another run\n +values: repeatable; default: none\n/);
  assert.match(text, /\n {2}--json +JSON out\n +default: off\n/);
  assert.match(text, /\n {2}-h, --help +print this help and exit/);
  assert.match(text, /\narguments:\n {2}RUN {2}a run folder\n/);
  assert.match(text, /\nexample:\n {2}npx deno task tool data\/runs\/explore --claim c.json\n/);
  const table = flagTable(SPEC);
  assert.match(table, /\| `--mode M` +\| `fast` +\| `fast`, `slow` +\| the mode +\|/);
  assert.match(table, /\| `--claim FILE` \| required \| +\| the claim +\|/);
});

Deno.test("markdownTable pads every column and escapes a pipe inside a cell", () => {
  assert.equal(
    markdownTable(["a", "bb"], [["x|y", "z"]]),
    ["| a    | bb  |", "| ---- | --- |", "| x\\|y | z   |"].join("\n"),
  );
});

/** Runs `f` with console.log and console.error captured. */
async function captured(f: () => Promise<number>): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [], err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  console.error = (...a: unknown[]) => err.push(a.join(" "));
  try {
    return { code: await f(), out, err };
  } finally {
    console.log = log;
    console.error = error;
  }
}

Deno.test("commandExitCode: help exits 0; bad input 2 with the pointer to --help; any other error 1", async () => {
  let ran = false;
  const help = await captured(() => commandExitCode(SPEC, ["--bogus", "-h"], () => void (ran = true)));
  assert.equal(help.code, 0);
  assert.equal(ran, false);
  assert.deepEqual(help.err, []);
  assert.equal(help.out.join("\n"), helpText(SPEC));

  const bad = await captured(() => commandExitCode(SPEC, ["--seed", "x"], ({ check }) => check.throwIfAny()));
  assert.equal(bad.code, 2);
  assert.deepEqual(bad.out, []);
  assert.deepEqual(bad.err, [
    'error: invalid input (3 problems):\n  --seed: expected an integer ≥ 0, got "x"\n  --claim FILE is required\n' +
    "  expected one RUN folder, got 0",
    "see 'npx deno task tool --help' for every flag, its default and meaning",
  ]);

  const late = await captured(() =>
    commandExitCode(SPEC, ["r", "--claim", "c"], () => {
      throw new InputError("c: no such claim");
    })
  );
  assert.equal(late.code, 2);
  assert.equal(late.err[0], "error: c: no such claim");

  const crash = await captured(() =>
    commandExitCode(SPEC, ["r", "--claim", "c"], () => {
      throw new Error("boom");
    })
  );
  assert.deepEqual([crash.code, crash.err], [1, ["error: boom"]]);
  assert.equal((await captured(() => commandExitCode(SPEC, ["r", "--claim", "c"], () => 3))).code, 3);
});

Deno.test("exit codes: the shared ones, a command's own replacing or adding to them, in order", () => {
  const codes = (spec: CommandSpec) => exitCodes(spec).map(([k]) => k).join(" ");
  assert.equal(codes(SPEC), "0 1 2");
  const own = { ...SPEC, exits: { "128+n": "a second signal", 1: "a runner error", 3: "nothing succeeded" } };
  assert.equal(codes(own), "0 1 2 3 128+n");
  assert.equal(exitCodes(own)[1]![1], "a runner error");
  // A pass-through command refuses no input of its own.
  assert.equal(codes({ ...SPEC, passthrough: "deno test" }), "0 1");
});
