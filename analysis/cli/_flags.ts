/**
 * The flag declarations (lib/command.ts) several analysis CLIs share, and the
 * default SLO policy per workload: plain data, no engine loaded, so the SQL
 * CLI (analysis/cli/sql.ts) declares the same flags as the polars CLIs
 * without loading polars. `_args.ts` re-exports them.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { PositionalSpec } from "../../lib/command.ts";

/** Workloads whose SLO policy ships in data/slo/: the file, relative to the repository. */
const DEFAULT_POLICIES: Record<string, string> = {
  "design-v1": "data/slo/design-v1.json",
  "chat-example": "data/slo/chat-example.json",
};

/** The policy file shipped in data/slo/ for a workload, or undefined when none ships. */
export function defaultSloFile(workload: string): string | undefined {
  const file = DEFAULT_POLICIES[workload];
  return file === undefined ? undefined : fileURLToPath(new URL(`../../${file}`, import.meta.url));
}

/** Where the SLO policy comes from without `--slo`, in words. */
export const SLO_DEFAULT_TEXT = `the workload's policy in \`data/slo/\` (${
  Object.entries(DEFAULT_POLICIES).map(([w, file]) => `\`${file}\` for ${w}`).join(", ")
})`;

/** `--slo FILE`: the SLO policy; without it, the workload's default in data/slo/. */
export const SLO_FLAG = {
  slo: {
    type: "string",
    arg: "FILE",
    defaultText: `${SLO_DEFAULT_TEXT}; any other workload needs \`--slo\``,
    description: "the SLO policy (JSON, `SloPolicy` in schema/slo.ts): each class's latency limits and gates, the " +
      "denominator and the window",
  },
} as const;

/** `--denominator offered|sent|completed`: replaces the policy's. */
export const DENOMINATOR_FLAG = {
  denominator: {
    type: "string",
    arg: "D",
    choices: ["offered", "sent", "completed"],
    defaultText: "the policy's (`offered` when it states none)",
    description: "the denominator of the acceptance rate and the SLO miss rate, replacing the policy's",
  },
} as const;

/** `--verify strict|warn` and `--partial-shards`: how a run folder is opened. */
export const OPEN_FLAGS = {
  verify: {
    type: "string",
    arg: "MODE",
    choices: ["strict", "warn"],
    default: "strict",
    description: "a log file whose sha256 differs from run.json: `strict` refuses the run, `warn` reads it with a " +
      "loud warning",
  },
  "partial-shards": {
    type: "boolean",
    description: "read a sharded run with shards missing (refused without it); the result says which are missing",
  },
} as const;

/** `--json`. */
export const JSON_FLAG = {
  json: { type: "boolean", description: "print one JSON document instead of the text tables" },
} as const;

/** The RUN argument of a command that reads `min` to `max` run folders. */
export function runArgument(min: number, max?: number): PositionalSpec {
  return {
    name: "RUN",
    noun: "RUN folder",
    description: "a run folder (`run.json` and its log files, as `npx deno task run` writes them; a sharded run's " +
      "parent folder reads every shard)",
    min,
    ...(max === undefined ? {} : { max }),
  };
}
