/**
 * `npx deno task plan --plan FILE [flags]`: builds a plan's arrival schedule
 * and prints per-stage counts and rates, per-class counts, the total and the
 * sha256 of the schedule.csv a run would save, and, when a load level is too
 * short for the knee's percentile signals, the one warning line a run prints
 * with one line per short level below it (runner/plan_length.ts; `--json`:
 * `plan_length`). Sends nothing and writes nothing. Its flags:
 * {@linkcode PLAN_COMMAND}.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { loadWorkload } from "../../schema/workload_file.ts";
import { buildSchedule, loadPlan, scheduleSha256, summarizeSchedule } from "../schedule.ts";
import type { ScheduleSummary } from "../plans/summarize.ts";
import { describeSweep } from "../plans/sweep.ts";
import { describeDrills } from "../intake_drill.ts";
import { planLengthOf } from "../plan_length.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import { fixed } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";

const DEFAULT_WORKLOAD = "data/workloads/design-v1";

/** `npx deno task plan`: its flags and help (lib/command.ts). */
export const PLAN_COMMAND = {
  name: "plan",
  invocation: "npx deno task plan",
  summary: "prints a plan's arrival schedule: per-stage counts and rates, per-class counts, the total and the " +
    "schedule's sha256, and warns when a step is too short for the knee's percentile signals; sends nothing",
  flags: {
    plan: { type: "string", arg: "FILE", required: true, description: "the arrival plan (docs/plans.md)" },
    workload: {
      type: "string",
      arg: "DIR",
      default: DEFAULT_WORKLOAD,
      description: "the workload the plan draws its cases from",
    },
    shard: {
      type: "string",
      arg: "i/N",
      default: "0/1",
      values: "0 ≤ i < N",
      description: "count only shard i of N of the schedule",
    },
    json: { type: "boolean", description: "print one JSON document instead of the tables" },
  },
  examples: [
    "npx deno task plan --plan data/plans/demo-timeline.json",
    "npx deno task plan --plan data/plans/sweep-geometric.json --json",
  ],
} as const satisfies CommandSpec;

/** The human-readable report of a schedule summary. */
export function renderSummary(s: ScheduleSummary, sha256: string | null): string {
  const lines: string[] = [];
  const header = ["stage", "kind", "start_s", "end_s", "planned_rps", "requests", "realised_rps"];
  const rows = s.stages.map((st) => [
    st.name,
    st.kind,
    fixed(st.start_ms / 1000, 1),
    fixed(st.end_ms / 1000, 1),
    fixed(st.planned_rps, 2),
    String(st.requests),
    fixed(st.realised_rps, 2),
  ]);
  lines.push(...textTable(header, rows, { left: 2 }), "");
  lines.push(
    ...textTable(["class", "requests"], Object.entries(s.classes).map(([c, n]) => [c, String(n)]), { left: 1 }),
  );
  lines.push("");
  if (s.mode === "closed") {
    lines.push("closed loop: arrivals are made by the users as they finish; no precomputed schedule");
  } else {
    lines.push(`total planned: ${s.total_planned} (shard ${s.shard.index}/${s.shard.count}: ${s.requests})`);
    lines.push(`schedule sha256: ${sha256}`);
  }
  return lines.join("\n");
}

async function main({ values: flags, check }: ParsedCommand<typeof PLAN_COMMAND>): Promise<void> {
  // Every flag and both files: all problems named at once.
  const shard = check.shard(flags.shard);
  const loadedPlan = flags.plan === undefined ? undefined : await check.load(() => loadPlan(flags.plan!));
  const workloadDir = flags.workload === DEFAULT_WORKLOAD
    ? fileURLToPath(new URL(`../../${DEFAULT_WORKLOAD}`, import.meta.url))
    : flags.workload;
  const loadedWorkload = await check.load(() => loadWorkload(workloadDir));
  check.throwIfAny();
  const plan = loadedPlan!;
  const { workload } = loadedWorkload!;
  const built = await buildSchedule(plan.spec, workload, { planDir: plan.planDir, planFile: plan.planFile, shard });
  const summary = summarizeSchedule(built);
  const sha256 = built.mode === "open" ? await scheduleSha256(built.entries) : null;
  const length = planLengthOf(built.stages, loadedWorkload!, plan.spec.mix, flags.plan!);
  if (flags.json) {
    const out = { plan: plan.spec.name, workload: workload.workload, ...summary, sha256, plan_length: length };
    console.log(JSON.stringify(plan.spec.drills ? { ...out, drills: plan.spec.drills } : out, null, 2));
  } else {
    const a = plan.spec.arrivals;
    console.log(
      `plan ${plan.spec.name} (${a.process}, seed ${plan.spec.seed}) on workload ${workload.workload} ` +
        `(${workload.cases.length} cases)`,
    );
    if (a.process === "sweep") console.log(describeSweep(a));
    for (const line of describeDrills(plan.spec.drills)) console.log(line);
    console.log(renderSummary(summary, sha256));
    // Nothing more when every level is long enough for the knee's percentile signals (or the plan has no knee): else
    // the run's one warning line, then each short level's n expected and needed and the step that would do.
    for (const w of length.warnings) console.log(`warning: ${w}`);
    for (const w of length.level_warnings) console.log(`  ${w}`);
  }
}

if (import.meta.main) await runCommand(PLAN_COMMAND, main);
