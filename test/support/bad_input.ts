/**
 * The table-driven bad-input suite's machinery: each case names a CLI, its
 * arguments and the files to write into its own temp folder; every case must
 * exit 2 with stderr naming the file and field (or the flag), no stack trace
 * and nothing on stdout. The CLIs run as subprocesses, a few at a time, with
 * the permissions of their `deno task` (deno.json); each case is then one step.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixtureManifest, fixtureTables, POLICY } from "../analysis/hand_fixture.ts";
import { writeRun } from "../analysis/_fixture.ts";
import { type CliResult, runCli } from "./run_cli.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const ANALYSIS = ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"];

/** Each CLI: its script and the permissions its `deno task` gives it. */
export const CLIS = {
  run: ["runner/cli/run.ts", [
    "--allow-net=127.0.0.1,localhost",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-sys",
    "--allow-run",
  ]],
  plan: ["runner/cli/plan.ts", ["--allow-read"]],
  judge: ["runner/judge/cli.ts", ["--allow-net", "--allow-read", "--allow-write", "--allow-env"]],
  sim: ["sim/cli.ts", ["--allow-net=127.0.0.1,localhost", "--allow-read", "--allow-write", "--allow-env"]],
  demo: ["scripts/demo.ts", ["-A"]],
  analyze: ["analysis/cli/analyze.ts", ANALYSIS],
  audit: ["analysis/cli/audit.ts", ANALYSIS],
  knee: ["analysis/cli/knee.ts", ANALYSIS],
  ledger: ["analysis/cli/ledger.ts", ANALYSIS],
  compare: ["analysis/cli/compare.ts", [...ANALYSIS, "--allow-write"]],
  report: ["analysis/cli/report.ts", [...ANALYSIS, "--allow-write", "--allow-run"]],
  import_prices: ["analysis/cli/import_prices.ts", ["-A"]],
} as const satisfies Record<string, readonly [string, readonly string[]]>;

/** Good inputs shared by every case of a file (paths under one temp folder). */
export interface Good {
  root: string;
  workload: string;
  plan: string;
  /** A finished run folder (the hand fixture: workload "fixture", classes qa, json, chat; route "default"). */
  run: string;
  /** A second copy of it (for compare). */
  run2: string;
  /** The hand fixture's SLO policy. */
  slo: string;
  /** A price sheet whose "*" entry prices any route. */
  prices: string;
  overheads: string;
  /** A claim the fixture run can be audited against. */
  claim: string;
}

/** Writes the good inputs once. */
export function writeGood(): Good {
  const root = Deno.makeTempDirSync({ prefix: "bad_input_good_" });
  const run = writeRun(join(root, "run"), fixtureManifest(), fixtureTables());
  const run2 = writeRun(join(root, "run2"), { ...fixtureManifest(), run_id: "fixture-run-2" }, fixtureTables());
  return {
    root,
    workload: writeWorkload(root, [tinyCase()]),
    plan: constantPlan(root, 5, 1),
    run,
    run2,
    slo: writeJson(root, "slo.json", POLICY),
    prices: join(ROOT, "data/prices/selfhosted-sim.json"),
    overheads: join(ROOT, "data/prices/overheads-default.json"),
    claim: writeJson(root, "claim.json", { metric: "accepted_goodput", value: 1, source: "a slide" }),
  };
}

/** One bad input. */
export interface BadInputCase {
  name: string;
  cli: keyof typeof CLIS;
  /** The arguments; `d` is the case's own folder (its files written), `g` the good inputs. */
  args: (d: string, g: Good) => string[];
  /** Files to write into the case's folder: a string is written as is, anything else as JSON. */
  files?: Record<string, unknown>;
  /** Anything else to prepare in the case's folder (e.g. a damaged copy of a run folder). */
  setup?: (d: string, g: Good) => void;
  /** Substrings (or patterns) stderr must hold: the file and field, or the flag. */
  expect: (string | RegExp)[];
}

/**
 * The one error style of bad input: stderr starts with `error: `, and its last line points to the command's
 * `--help` (lib/command.ts `helpPointer`).
 */
export function assertErrorStyle(stderr: string, context = stderr): void {
  assert.ok(stderr.startsWith("error: "), `stderr starts with "error: ":\n${context}`);
  const last = stderr.trimEnd().split("\n").at(-1)!;
  assert.match(last, /^see '.+ --help' for every flag, its default and meaning$/, `pointer to --help:\n${context}`);
}

/** Copies a folder (flat, or one level of sub-folders). */
export function copyDir(from: string, to: string): string {
  Deno.mkdirSync(to, { recursive: true });
  for (const e of Deno.readDirSync(from)) {
    if (e.isDirectory) copyDir(join(from, e.name), join(to, e.name));
    else Deno.copyFileSync(join(from, e.name), join(to, e.name));
  }
  return to;
}

/** Reads, changes and rewrites a JSON file. */
export function editJson(file: string, edit: (v: Record<string, unknown>) => void): void {
  const v = JSON.parse(Deno.readTextFileSync(file));
  edit(v);
  Deno.writeTextFileSync(file, JSON.stringify(v, null, 2));
}

async function runCase(c: BadInputCase, g: Good): Promise<{ dir: string; r: CliResult }> {
  const dir = Deno.makeTempDirSync({ prefix: "bad_input_case_" });
  for (const [name, content] of Object.entries(c.files ?? {})) {
    const path = join(dir, name);
    Deno.mkdirSync(join(path, ".."), { recursive: true });
    Deno.writeTextFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  c.setup?.(dir, g);
  const [script, permissions] = CLIS[c.cli];
  const r = await runCli(join(ROOT, script), c.args(dir, g), [...permissions], { cwd: ROOT });
  return { dir, r };
}

/**
 * Asserts one case's result: exit 2, `error: …` first and a pointer to `--help` last on stderr, every expected part
 * named, no stack trace, nothing on stdout.
 */
export function assertBadInput(c: BadInputCase, r: CliResult): void {
  const all = `exit ${r.code}\n--- stderr\n${r.stderr}\n--- stdout\n${r.stdout}`;
  assert.equal(r.code, 2, all);
  assertErrorStyle(r.stderr, all);
  for (const p of c.expect) {
    if (typeof p === "string") assert.ok(r.stderr.includes(p), `stderr names ${JSON.stringify(p)}:\n${all}`);
    else assert.match(r.stderr, p, all);
  }
  assert.doesNotMatch(r.stderr, /^\s+at /m, `no stack trace:\n${all}`);
  assert.ok(!r.stderr.includes("error: Uncaught"), `no uncaught error:\n${all}`);
  assert.equal(r.stdout, "", `nothing on stdout:\n${all}`);
}

/**
 * Runs every case (at most `concurrency` subprocesses at once), then asserts each in its own step.
 * Case names must be unique.
 */
export async function runBadInputSuite(t: Deno.TestContext, cases: BadInputCase[], concurrency = 3): Promise<void> {
  assert.equal(new Set(cases.map((c) => `${c.cli}: ${c.name}`)).size, cases.length, "unique case names");
  const g = writeGood();
  const results = new Array<{ dir: string; r: CliResult }>(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runCase(cases[i]!, g);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    for (const [i, c] of cases.entries()) {
      await t.step(`${c.cli}: ${c.name}`, () => assertBadInput(c, results[i]!.r));
    }
  } finally {
    for (const res of results) if (res) Deno.removeSync(res.dir, { recursive: true });
    Deno.removeSync(g.root, { recursive: true });
  }
}
