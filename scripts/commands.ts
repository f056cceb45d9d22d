/**
 * Every command a user runs, each by its one declaration (lib/command.ts),
 * with the script that parses it: the source of docs/commands.md
 * (`npx deno task flags`) and of the table-driven test of every command's
 * `--help` and bad flags (test/cli/help_test.ts), which also fails when a
 * script under runner/cli, analysis/cli, sim/ or scripts/ runs as a command
 * without being listed here.
 *
 * @module
 */
import type { CommandSpec } from "../lib/command.ts";
import { commandMarkdown, markdownTable } from "../lib/command_help.ts";
import { ANALYZE_COMMAND } from "../analysis/cli/analyze.ts";
import { AUDIT_COMMAND } from "../analysis/cli/audit.ts";
import { IMPORT_COMMAND } from "../importers/cli.ts";
import { COMPARE_COMMAND } from "../analysis/cli/compare.ts";
import { IMPORT_PRICES_COMMAND } from "../analysis/cli/import_prices.ts";
import { KNEE_COMMAND } from "../analysis/cli/knee.ts";
import { LEDGER_COMMAND } from "../analysis/cli/ledger.ts";
import { REPORT_COMMAND } from "../analysis/cli/report.ts";
import { REVIEW_COMMAND } from "../analysis/cli/review.ts";
import { SQL_COMMAND } from "../analysis/cli/sql.ts";
import { PLAN_COMMAND } from "../runner/cli/plan.ts";
import { JUDGE_COMMAND } from "../runner/judge/cli.ts";
import { RUN_COMMAND } from "../runner/cli/run_flags.ts";
import { SIM_COMMAND } from "../sim/cli.ts";
import { EXAMPLE_COMMAND } from "../examples/chat/drive.ts";
import { CHAT_SERVER_COMMAND } from "../examples/chat/server.ts";
import { ENGINE_COMMAND } from "../engine/cli.ts";
import { DEMO_COMMAND } from "./demo.ts";
import { KERNEL_COMMAND } from "./kernel.ts";
import { MAKE_CHAT_WORKLOAD_COMMAND } from "./make_chat_workload.ts";
import { MAKE_DESIGN_WORKLOAD_COMMAND } from "./make_design_workload.ts";
import { MAKE_ENGINE_WORKLOAD_COMMAND } from "./make_engine_workload.ts";
import { REPORT_SCREENSHOT_COMMAND } from "./report_screenshot.ts";
import { SAMPLES_COMMAND } from "./samples.ts";
import { SAMPLES_ENGINE_COMMAND } from "./samples_engine.ts";
import { SAMPLES_PRODUCTION_COMMAND } from "./samples_production.ts";
import { SAMPLES_QUALITY_COMMAND } from "./samples_quality.ts";
import { TEST_COMMAND } from "./test.ts";
import { TIMELINE_RUN_COMMAND } from "./timeline_run.ts";

/** `npx deno task flags`: its help (lib/command.ts); the command is scripts/flags.ts. */
export const FLAGS_COMMAND = {
  name: "flags",
  invocation: "npx deno task flags",
  summary: "rewrites docs/runner_flags.md and docs/commands.md from the commands' declarations and the settings " +
    "schema",
  flags: {},
  examples: ["npx deno task flags"],
} as const satisfies CommandSpec;

/** A command and the script that parses it (relative to the repository). */
export interface CommandEntry {
  spec: CommandSpec;
  script: string;
  /** A tool for working on the project rather than for measuring (listed apart in docs/commands.md). */
  development?: boolean;
}

/** Every command, in the order docs/commands.md lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  { spec: DEMO_COMMAND, script: "scripts/demo.ts" },
  { spec: RUN_COMMAND, script: "runner/cli/run.ts" },
  { spec: PLAN_COMMAND, script: "runner/cli/plan.ts" },
  { spec: JUDGE_COMMAND, script: "runner/judge/cli.ts" },
  { spec: SIM_COMMAND, script: "sim/cli.ts" },
  { spec: ENGINE_COMMAND, script: "engine/cli.ts" },
  { spec: ANALYZE_COMMAND, script: "analysis/cli/analyze.ts" },
  { spec: AUDIT_COMMAND, script: "analysis/cli/audit.ts" },
  { spec: IMPORT_COMMAND, script: "importers/cli.ts" },
  { spec: KNEE_COMMAND, script: "analysis/cli/knee.ts" },
  { spec: LEDGER_COMMAND, script: "analysis/cli/ledger.ts" },
  { spec: COMPARE_COMMAND, script: "analysis/cli/compare.ts" },
  { spec: REPORT_COMMAND, script: "analysis/cli/report.ts" },
  { spec: SQL_COMMAND, script: "analysis/cli/sql.ts" },
  { spec: REVIEW_COMMAND, script: "analysis/cli/review.ts" },
  { spec: IMPORT_PRICES_COMMAND, script: "analysis/cli/import_prices.ts" },
  { spec: EXAMPLE_COMMAND, script: "examples/chat/drive.ts" },
  { spec: CHAT_SERVER_COMMAND, script: "examples/chat/server.ts" },
  { spec: KERNEL_COMMAND, script: "scripts/kernel.ts" },
  { spec: SAMPLES_COMMAND, script: "scripts/samples.ts" },
  { spec: SAMPLES_PRODUCTION_COMMAND, script: "scripts/samples_production.ts" },
  { spec: SAMPLES_ENGINE_COMMAND, script: "scripts/samples_engine.ts" },
  { spec: SAMPLES_QUALITY_COMMAND, script: "scripts/samples_quality.ts" },
  { spec: TEST_COMMAND, script: "scripts/test.ts", development: true },
  { spec: FLAGS_COMMAND, script: "scripts/flags.ts", development: true },
  { spec: TIMELINE_RUN_COMMAND, script: "scripts/timeline_run.ts", development: true },
  { spec: MAKE_DESIGN_WORKLOAD_COMMAND, script: "scripts/make_design_workload.ts", development: true },
  { spec: MAKE_CHAT_WORKLOAD_COMMAND, script: "scripts/make_chat_workload.ts", development: true },
  { spec: MAKE_ENGINE_WORKLOAD_COMMAND, script: "scripts/make_engine_workload.ts", development: true },
  { spec: REPORT_SCREENSHOT_COMMAND, script: "scripts/report_screenshot.ts", development: true },
];

/** Where docs/commands.md is, relative to the repository root. */
export const COMMANDS_DOC = "docs/commands.md";

/** docs/commands.md, whole, before `deno fmt` wraps its paragraphs. */
export function commandsPage(): string {
  const index = (dev: boolean) =>
    markdownTable(
      ["command", "what it does"],
      COMMANDS.filter((c) => (c.development ?? false) === dev).map((c) => [
        `[\`${c.spec.invocation}\`](#${c.spec.name})`,
        c.spec.summary,
      ]),
    );
  return [
    "# Commands",
    "",
    "<!-- Generated by `npx deno task flags` from each command's declaration (scripts/commands.ts); do not edit by " +
    "hand. -->",
    "",
    "Every command, every flag with its default, the values it allows and its meaning — the text each command prints " +
    "with `--help` (or `-h`), from the same declaration that parses its flags (lib/command.ts). Commands are written " +
    "as a user with only Node.js runs them, `npx deno task …` (after `npm install`, or once `npm test` or " +
    "`npm run demo` has installed the dependencies); with Deno on your PATH, `deno task …` is the same.",
    "",
    "Bad input — an unknown flag, a flag without its value, a value out of range or not among the allowed ones, a " +
    "required flag or argument missing, a bad file — is refused before any work starts: `error: …` on stderr naming " +
    "every problem at once, then one line pointing to the command's `--help`, exit code 2, never a stack trace.",
    "",
    index(false),
    "",
    "For working on the project:",
    "",
    index(true),
    "",
    ...COMMANDS.map((c) => commandMarkdown(c.spec)),
  ].join("\n");
}
