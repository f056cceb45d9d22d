/**
 * Every command, as a user starts it (`npx deno task …` or `npx deno run … script`, here with this Deno): `--help`
 * and `-h` print every declared flag with its default and values, the arguments and the examples, exit 0; an unknown
 * flag, a bad value and a flag without its value exit 2 in the one error style (`error: …`, then a pointer to
 * `--help`), no stack trace. The commands are scripts/commands.ts, and no script runs as a command without being
 * listed there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeRule } from "../../lib/cli.ts";
import { type CommandSpec, type FlagSpec, parseCommand } from "../../lib/command.ts";
import { defaultText, flagCell, plain, valuesText } from "../../lib/command_help.ts";
import { COMMANDS } from "../../scripts/commands.ts";
import { assertErrorStyle } from "../support/bad_input.ts";
import type { CliResult } from "../support/run_cli.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The folders whose scripts a user runs. */
const CLI_DIRS = [
  "runner/cli",
  "runner/judge",
  "analysis/cli",
  "sim",
  "scripts",
  "importers",
  "examples/chat",
  "engine",
];
const TASKS: Record<string, string> = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks;

/** Every script under CLI_DIRS that runs as a program (`import.meta.main`), private `_*.ts` modules aside. */
function cliScripts(): string[] {
  return CLI_DIRS.flatMap((dir) =>
    [...Deno.readDirSync(join(ROOT, dir))]
      .filter((e) => e.isFile && e.name.endsWith(".ts") && !e.name.startsWith("_"))
      .map((e) => `${dir}/${e.name}`)
      .filter((f) => Deno.readTextFileSync(join(ROOT, f)).includes("if (import.meta.main)"))
  ).sort();
}

/** The arguments of `deno` that start a command as its invocation does (the task's own, for a task). */
function denoArgs(spec: CommandSpec): string[] {
  const task = /^npx deno task (\S+)$/.exec(spec.invocation);
  if (task) return ["task", "-q", task[1]!];
  const run = /^npx deno (run .+)$/.exec(spec.invocation);
  assert.ok(run, `${spec.name}: invocation is npx deno task NAME or npx deno run … SCRIPT: ${spec.invocation}`);
  return run[1]!.split(" ");
}

async function start(spec: CommandSpec, args: string[]): Promise<CliResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...denoArgs(spec), ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Runs `f` over `items`, at most `n` at a time, results in order. */
async function pooled<T, R>(items: readonly T[], n: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  }));
  return out;
}

/** The help text joined into one line (wrapping undone), to find a phrase wherever a line broke. */
const unwrapped = (text: string) => text.replace(/\s+/g, " ");

Deno.test("every script a user runs is a declared command, and every deno task runs its command's script", () => {
  const declared = COMMANDS.map((c) => c.script).sort();
  assert.deepEqual(cliScripts(), declared);
  assert.equal(new Set(COMMANDS.map((c) => c.spec.name)).size, COMMANDS.length, "unique names");
  for (const { spec, script } of COMMANDS) {
    const task = /^npx deno task (\S+)$/.exec(spec.invocation)?.[1];
    if (task) {
      assert.ok(TASKS[task], `deno.json has the task ${task}`);
      assert.ok(TASKS[task]!.trim().endsWith(` ${script}`), `deno task ${task} runs ${script}: ${TASKS[task]}`);
    } else assert.ok(spec.invocation.endsWith(` ${script}`), `${spec.invocation} runs ${script}`);
  }
  // Every task that runs one of our scripts is a command (check and ok run deno itself).
  for (const [name, cmd] of Object.entries(TASKS)) {
    if (/\.ts$/.test(cmd.trim())) assert.ok(COMMANDS.some((c) => c.spec.invocation === `npx deno task ${name}`), name);
  }
});

Deno.test("every declared flag is one the parser accepts, and every example starts a command on files that exist", () => {
  const invocations = COMMANDS.map((c) => c.spec.invocation);
  for (const { spec } of COMMANDS) {
    for (const [name, f] of Object.entries(spec.flags)) {
      const args = f.type === "boolean" ? [`--${name}`] : [`--${name}`, "1"];
      const { check } = parseCommand(spec, args);
      assert.ok(!check.problems.some((p) => p.startsWith("unknown flag")), `${spec.name} --${name}`);
    }
    assert.ok(spec.examples.length > 0, `${spec.name} has an example`);
    for (const example of spec.examples) {
      assert.ok(invocations.some((i) => example.startsWith(`${i}`)), `${spec.name}: ${example}`);
      const words = example.split(" ");
      for (const [i, w] of words.entries()) {
        // Inputs the example reads must be in a fresh clone (what it writes need not).
        if (w.startsWith("data/") && words[i - 1] !== "--out") {
          assert.ok(Deno.statSync(join(ROOT, w)), `${spec.name}: ${example}: ${w} exists`);
        }
      }
    }
  }
});

/** A flag value the command must refuse, and the problem it must name; null when the command has none to test. */
function badValue(spec: CommandSpec): { args: string[]; problem: string } | null {
  const flags = Object.entries(spec.flags) as [string, FlagSpec][];
  const num = flags.find(([, f]) => f.type === "number");
  if (num && num[1].type === "number") {
    return {
      args: [`--${num[0]}`, "many"],
      problem: `--${num[0]}: expected ${describeRule(num[1].rule)}, got "many"`,
    };
  }
  const choice = flags.find(([, f]) => f.type === "string" && f.choices);
  if (choice && choice[1].type === "string") {
    return { args: [`--${choice[0]}`, "nonesuch"], problem: `--${choice[0]}: expected ` };
  }
  return null;
}

/** A flag given without its value (last on the line), or null when the command takes none. */
function missingValue(spec: CommandSpec): { args: string[]; problem: string } | null {
  const entry = Object.entries(spec.flags).find(([, f]) => f.type !== "boolean");
  if (!entry || entry[1].type === "boolean") return null;
  return { args: [`--${entry[0]}`], problem: `--${entry[0]} needs a value ${entry[1].arg}` };
}

Deno.test("--help and -h: every command prints every flag with its default and values, its arguments and examples", async (t) => {
  const results = await pooled(COMMANDS, 3, async ({ spec }) => ({
    long: await start(spec, ["--help"]),
    short: await start(spec, ["-h"]),
  }));
  for (const [i, { spec }] of COMMANDS.entries()) {
    await t.step(spec.invocation, () => {
      const { long, short } = results[i]!;
      const all = `exit ${long.code}\n--- stdout\n${long.stdout}\n--- stderr\n${long.stderr}`;
      assert.equal(long.code, 0, all);
      assert.equal(long.stderr, "", all);
      assert.equal(short.code, 0);
      assert.equal(short.stdout, long.stdout, "-h prints what --help prints");
      const text = long.stdout;
      const flat = unwrapped(text);
      assert.ok(text.startsWith(`${spec.invocation}: `), all);
      assert.ok(flat.includes(unwrapped(plain(spec.summary))), `the summary:\n${all}`);
      assert.match(text, new RegExp(`\\nusage: ${spec.invocation.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`), all);
      for (const [name, f] of Object.entries(spec.flags)) {
        // The flag at the start of its line, then its meaning, default and values.
        assert.match(text, new RegExp(`\\n  ${flagCell(name, f).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( |\\n)`), name);
        assert.ok(flat.includes(unwrapped(plain(f.description))), `--${name} meaning:\n${all}`);
        const shown = f.type !== "boolean" && f.required && f.defaultText === undefined
          ? "required"
          : `default: ${plain(defaultText(f))}`;
        assert.ok(flat.includes(unwrapped(shown)), `--${name} ${shown}:\n${all}`);
        const values = valuesText(f);
        if (values) assert.ok(flat.includes(unwrapped(`values: ${plain(values)}`)), `--${name} values:\n${all}`);
      }
      assert.match(text, /\n {2}-h, --help +print this help and exit/);
      for (const p of spec.positionals ?? []) {
        assert.match(text, new RegExp(`\\n  ${p.name.replace(".", "\\.")} `), p.name);
      }
      for (const e of spec.examples) assert.ok(text.includes(`\n  ${e}\n`), `example ${e}`);
      assert.match(text, /\nexit codes:\n {2}0 +done\n/);
      // A pass-through command refuses no input of its own.
      if (!spec.passthrough) assert.match(text, /\n {2}2 +bad input/);
    });
  }
});

Deno.test("bad flags: every command exits 2 with 'error: …' naming the flag, then a pointer to --help", async (t) => {
  const cases = COMMANDS.flatMap(({ spec }) => {
    // `npx deno task test` passes every argument but --help on to `deno test` (its help says so).
    if (spec.passthrough) return [];
    const out = [{ spec, what: "an unknown flag", args: ["--no-such-flag"], problem: "unknown flag --no-such-flag" }];
    const bad = badValue(spec);
    if (bad) out.push({ spec, what: `a bad value (${bad.args.join(" ")})`, ...bad });
    const missing = missingValue(spec);
    if (missing) out.push({ spec, what: `a flag without its value (${missing.args.join(" ")})`, ...missing });
    if (!Object.keys(spec.flags).length) {
      out.push({ spec, what: "one argument too many", args: ["a", "b", "c"], problem: "" });
    }
    return out;
  });
  const results = await pooled(cases, 3, (c) => start(c.spec, c.args));
  for (const [i, c] of cases.entries()) {
    await t.step(`${c.spec.invocation}: ${c.what}`, () => {
      const r = results[i]!;
      const all = `exit ${r.code}\n--- stderr\n${r.stderr}\n--- stdout\n${r.stdout}`;
      assert.equal(r.code, 2, all);
      assertErrorStyle(r.stderr, all);
      assert.ok(
        r.stderr.trimEnd().endsWith(`see '${c.spec.invocation} --help' for every flag, its default and meaning`),
      );
      assert.ok(r.stderr.includes(c.problem), `names ${JSON.stringify(c.problem)}:\n${all}`);
      assert.doesNotMatch(r.stderr, /^\s+at /m, `no stack trace:\n${all}`);
      assert.equal(r.stdout, "", all);
    });
  }
});

Deno.test("the README's form works: npx deno task … runs the clone's Deno, from any folder of the clone", async () => {
  // npx finds node_modules/.bin/deno (the pinned npm package): a user with only Node.js needs nothing on PATH.
  const out = await new Deno.Command("npx", {
    args: ["--no-install", "deno", "task", "-q", "plan", "--help"],
    cwd: join(ROOT, "docs"),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.ok(stdout.startsWith("npx deno task plan: "), stdout);
});
