/**
 * `deno task plan --plan FILE [--workload DIR] [--shard i/N] [--json]`:
 * builds a plan's arrival schedule and prints per-stage counts and rates,
 * per-class counts, the total and the sha256 of the schedule.csv a run
 * would save. Sends nothing and writes nothing. Bad flags or files: a
 * message on stderr and exit code 2.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { EXIT_BAD_INPUT, InputError } from "../../schema/errors.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { buildSchedule, loadPlan, scheduleSha256, summarizeSchedule } from "../schedule.ts";
import type { ScheduleSummary } from "../plans/summarize.ts";
import { describeSweep } from "../plans/sweep.ts";
import { describeDrills } from "../intake_drill.ts";
import { InputCheck, parseFlags } from "./_cli.ts";
import { fixed } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";

const USAGE = "usage: deno task plan --plan FILE [--workload DIR] [--shard i/N] [--json]";
const DEFAULT_WORKLOAD = fileURLToPath(new URL("../../data/workloads/design-v1", import.meta.url));

const FLAGS = {
  plan: { type: "string" },
  workload: { type: "string", default: DEFAULT_WORKLOAD },
  shard: { type: "string", default: "0/1" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

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

/** Runs the CLI; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  try {
    const flags = parseFlags(args, FLAGS, USAGE).values;
    if (flags.help) {
      console.log(USAGE);
      return 0;
    }
    // Every flag and both files: all problems named at once.
    const check = new InputCheck();
    check.require(flags.plan === undefined, "--plan is required");
    const shard = check.shard(flags.shard);
    const loadedPlan = flags.plan === undefined ? undefined : await check.load(() => loadPlan(flags.plan!));
    const loadedWorkload = await check.load(() => loadWorkload(flags.workload));
    check.throwIfAny(USAGE);
    const plan = loadedPlan!;
    const { workload } = loadedWorkload!;
    const built = await buildSchedule(plan.spec, workload, { planDir: plan.planDir, planFile: plan.planFile, shard });
    const summary = summarizeSchedule(built);
    const sha256 = built.mode === "open" ? await scheduleSha256(built.entries) : null;
    if (flags.json) {
      const out = { plan: plan.spec.name, workload: workload.workload, ...summary, sha256 };
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
    }
    return 0;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    console.error(e.message);
    return EXIT_BAD_INPUT;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
