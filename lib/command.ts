/**
 * One declaration per command ({@linkcode CommandSpec}): its flags (kind,
 * default, allowed values, meaning), its arguments, a summary and examples.
 * The parser's configuration, every flag check, `--help` (lib/command_help.ts)
 * and the docs page of every command (docs/commands.md) are generated from it,
 * so that the help and the parsing cannot drift apart.
 *
 * One error style for every command: bad input prints `error: <message>` on
 * stderr, then one line pointing to `--help`, and exits 2; any other error
 * prints `error: <message>` and exits 1; never a stack trace.
 *
 * @example A flag declared once: parsed, checked and described
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommandSpec, parseCommand } from "./command.ts";
 * const spec = {
 *   name: "demo",
 *   invocation: "npx deno task demo",
 *   summary: "a demonstration",
 *   flags: { seed: { type: "number", arg: "N", default: 1, rule: { min: 0, integer: true }, description: "the seed" } },
 *   examples: ["npx deno task demo --seed 2"],
 * } as const satisfies CommandSpec;
 * assert.equal(parseCommand(spec, ["--seed", "2"]).values.seed, 2);
 * const bad = parseCommand(spec, ["--seed", "x", "--fast"]);
 * assert.deepEqual(bad.check.problems, ['unknown flag --fast', '--seed: expected an integer ≥ 0, got "x"']);
 * ```
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { EXIT_BAD_INPUT, InputError } from "../schema/errors.ts";
import { InputCheck, type NumberRule } from "./cli.ts";
import { helpText } from "./command_help.ts";

interface FlagBase {
  /** What the flag does, one sentence (markdown backticks allowed; the terminal help drops them). */
  description: string;
  /** The default in words, when it is not a literal value (e.g. "the plan's"); shown instead of `default`. */
  defaultText?: string;
}

/** A switch: off unless given. */
export interface SwitchFlag extends FlagBase {
  type: "boolean";
}

/** A flag with a text value. */
export interface StringFlag extends FlagBase {
  type: "string";
  /** The value's placeholder in the help (`FILE`, `DIR`, `URL`, …). */
  arg: string;
  default?: string;
  /** The only values allowed; anything else is a problem naming them. */
  choices?: readonly string[];
  /** The allowed values in words, for a value the command checks itself (a date, `i/N`, …). */
  values?: string;
  required?: boolean;
  /** Repeatable: the value is the list of every occurrence. */
  multiple?: boolean;
}

/** A flag with a numeric value in a range. */
export interface NumberFlag extends FlagBase {
  type: "number";
  arg: string;
  default?: number;
  rule: NumberRule;
  required?: boolean;
}

export type FlagSpec = SwitchFlag | StringFlag | NumberFlag;

/** A group of arguments: `min` to `max` of them (no `max`: any number). */
export interface PositionalSpec {
  /** The placeholder, e.g. `RUN`. */
  name: string;
  /** What one is, as counted in an error (`RUN folder` → "expected one RUN folder, got 0"). */
  noun: string;
  description: string;
  min: number;
  max?: number;
}

/** One command: everything its help, its docs and its parser know. */
export interface CommandSpec {
  /** The command's name (`analyze`); its deno task when it has one. */
  name: string;
  /** How a user starts it, as written in the README (`npx deno task analyze`). */
  invocation: string;
  /** One line: what it does. */
  summary: string;
  /** More about it, one paragraph per entry (optional). */
  details?: readonly string[];
  positionals?: readonly PositionalSpec[];
  flags: Readonly<Record<string, FlagSpec>>;
  /** Whole command lines that work from a fresh clone. */
  examples: readonly string[];
  /** Exit codes beyond 0 (done), 1 (an unexpected error) and 2 (bad input), by code (`"3"`, `"128+n"`). */
  exits?: Readonly<Record<string, string>>;
  /** Arguments other than `--help` are passed on untouched, to the command line given here. */
  passthrough?: string;
}

type ValueOf<S> = S extends SwitchFlag ? boolean
  : S extends NumberFlag ? (S extends { default: number } ? number : number | undefined)
  : S extends { multiple: true } ? string[]
  : S extends { choices: readonly (infer C)[] } ? (S extends { default: string } ? C : C | undefined)
  : S extends { default: string } ? string
  : string | undefined;

/** The parsed value of every flag: a default fills an absent flag; a switch is false unless given. */
export type FlagValues<F extends CommandSpec["flags"]> = { -readonly [K in keyof F]: ValueOf<F[K]> };

/** What {@linkcode parseCommand} returns: the values, the arguments, and every problem found so far. */
export interface ParsedCommand<S extends CommandSpec> {
  values: FlagValues<S["flags"]>;
  positionals: string[];
  /** The problems of the flags and arguments; the command adds its files' and calls `throwIfAny`. */
  check: InputCheck;
}

/** `--help` or `-h` anywhere before a `--`. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** Flags, counted as a whole: "one RUN folder", "at least 2 RUN folders". */
function countText(n: number, noun: string): string {
  return `${n === 1 ? "one" : n} ${noun}${n === 1 ? "" : "s"}`;
}

/** The argument count problem, or null. */
function positionalProblem(spec: readonly PositionalSpec[], n: number): string | null {
  const min = spec.reduce((s, p) => s + p.min, 0);
  const max = spec.reduce((s, p) => s + (p.max ?? Infinity), 0);
  if (n >= min && n <= max) return null;
  const noun = spec.length === 1 ? spec[0]!.noun : "argument";
  const want = min === max
    ? countText(min, noun)
    : n < min
    ? `at least ${countText(min, noun)}`
    : `at most ${countText(max, noun)}`;
  return `expected ${want}, got ${n}`;
}

/**
 * Parses and checks `args` against the spec. Nothing is thrown: every problem
 * (an unknown flag, a missing value, a value given to a switch, a number out of
 * range, a value not among the choices, a required flag missing, the wrong
 * number of arguments) is recorded on the returned check, and a flag with a
 * problem keeps its default, so that the command can add its files' problems
 * and name them all at once.
 */
export function parseCommand<S extends CommandSpec>(spec: S, args: readonly string[]): ParsedCommand<S> {
  const check = new InputCheck();
  if (spec.passthrough) return { values: defaults(spec) as FlagValues<S["flags"]>, positionals: [...args], check };
  const options: ParseArgsConfig["options"] = {};
  for (const [name, f] of Object.entries(spec.flags)) {
    options[name] = f.type === "string" && f.multiple
      ? { type: "string", multiple: true }
      : { type: f.type === "boolean" ? "boolean" : "string" };
  }
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const raw = new Map<string, string[]>();
  const switches = new Set<string>();
  const valueless = new Set<string>();
  const positionals: string[] = [];
  let afterUnknown = -2;
  let terminated = false;
  for (const t of tokens) {
    if (t.kind === "option-terminator") {
      terminated = true;
      continue;
    }
    if (t.kind === "positional") {
      // A word right after an unknown flag is taken as its value: the unknown flag is the one problem named.
      if (!terminated && t.index === afterUnknown + 1) continue;
      positionals.push(t.value);
      continue;
    }
    const f = Object.hasOwn(spec.flags, t.name) ? spec.flags[t.name] : undefined;
    if (!f) {
      check.problems.push(`unknown flag ${t.rawName}`);
      if (t.value === undefined) afterUnknown = t.index;
      continue;
    }
    if (f.type === "boolean") {
      if (t.value !== undefined) {
        check.problems.push(`${t.rawName} is a switch and takes no value, got ${JSON.stringify(t.value)}`);
      } else switches.add(t.name);
      continue;
    }
    if (t.value === undefined || (!t.inlineValue && t.value.startsWith("--"))) {
      const got = t.value === undefined
        ? ""
        : ` (got the flag ${t.value}; a value starting with -- is written ${t.rawName}=VALUE)`;
      check.problems.push(`${t.rawName} needs a value ${f.arg}${got}`);
      valueless.add(t.name);
      continue;
    }
    raw.set(t.name, [...raw.get(t.name) ?? [], t.value]);
  }
  const values: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec.flags)) {
    const given = raw.get(name);
    if (f.type === "boolean") values[name] = switches.has(name);
    else if (f.type === "string" && f.multiple) values[name] = given ?? [];
    else if (given === undefined) {
      check.require(f.required === true && !valueless.has(name), `--${name} ${f.arg} is required`);
      values[name] = f.default;
    } else if (f.type === "number") values[name] = check.number(name, given.at(-1), f.rule) ?? f.default;
    else if (f.choices) values[name] = check.oneOf(name, given.at(-1), f.choices) ?? f.default;
    else values[name] = given.at(-1);
  }
  if (spec.positionals?.length) {
    const problem = positionalProblem(spec.positionals, positionals.length);
    if (problem) check.problems.push(problem);
  } else {
    for (const p of positionals) check.problems.push(`unexpected argument ${JSON.stringify(p)}`);
  }
  return { values: values as FlagValues<S["flags"]>, positionals, check };
}

/** Every flag's default (a switch: false; a repeatable flag: []). */
function defaults(spec: CommandSpec): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(spec.flags).map(([k, f]) => [
      k,
      f.type === "boolean" ? false : f.type === "string" && f.multiple ? [] : f.default,
    ]),
  );
}

/** The line after a bad-input message: where the flags are described. */
export function helpPointer(spec: CommandSpec): string {
  return `see '${spec.invocation} --help' for every flag, its default and meaning`;
}

/**
 * Runs a command to its exit code: `--help` prints the help (stdout, 0); bad
 * input — an {@linkcode InputError}, whenever thrown — prints `error: …` and
 * the pointer to `--help` (stderr, {@linkcode EXIT_BAD_INPUT}); any other
 * error prints `error: …` (stderr, 1); otherwise `main`'s code (none: 0).
 */
export async function commandExitCode<S extends CommandSpec>(
  spec: S,
  args: readonly string[],
  main: (parsed: ParsedCommand<S>) => Promise<number | void> | number | void,
): Promise<number> {
  if (wantsHelp(args)) {
    console.log(helpText(spec));
    return 0;
  }
  try {
    return (await main(parseCommand(spec, args))) ?? 0;
  } catch (e) {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    if (!(e instanceof InputError)) return 1;
    console.error(helpPointer(spec));
    return EXIT_BAD_INPUT;
  }
}

/** A CLI's entry: {@linkcode commandExitCode} over `Deno.args`, then exits with it. */
export async function runCommand<S extends CommandSpec>(
  spec: S,
  main: (parsed: ParsedCommand<S>) => Promise<number | void> | number | void,
): Promise<never> {
  Deno.exit(await commandExitCode(spec, Deno.args, main));
}
