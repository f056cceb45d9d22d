/**
 * The parent's first step of `--workers`: every input checked once (a bad
 * file is named once, not by every worker), the run id and folder decided,
 * the workers' command lines built; then {@linkcode runWorkers}.
 *
 * @module
 */
import { join } from "node:path";
import { RUN_COMMAND } from "../cli/run_flags.ts";
import type { FlagValues } from "../../lib/command.ts";
import { defaultRunId, refuseUsedFolder } from "../prepare.ts";
import { loadRunInputs } from "../run_inputs.ts";
import { planLengthOf } from "../plan_length.ts";
import type { RunOptions } from "../run_options.ts";
import { heldPermissions, passedFlags, workerShards } from "./worker_args.ts";
import { runWorkers } from "./run_workers.ts";

/** Starts `count` workers for the run `o` (the CLI's flags `values`); resolves to the parent's exit code. */
export async function launchWorkers(
  o: RunOptions,
  w: { count: number; values: FlagValues<typeof RUN_COMMAND["flags"]> },
): Promise<number> {
  const own = o.shard ?? { index: 0, count: 1 };
  const shards = workerShards(own, w.count);
  const inputs = await loadRunInputs({ ...o, shard: shards[0]! });
  const hosts = inputs.routes.allow.hosts;
  await inputs.routes.close();
  // Once for the run (the workers keep them in run.json without printing them).
  for (const line of planLengthOf(inputs.built.stages, inputs.loaded, inputs.plan.spec.mix, o.plan).warnings) {
    console.error(`warning: ${line}`);
  }
  const startIso = o.startAt ? new Date(o.startAt).toISOString() : null;
  const runId = o.runId ?? defaultRunId(inputs.plan.spec.name, startIso ?? new Date().toISOString());
  const runDir = join(o.out, runId);
  // The workers own the run folder; a shard i/M of a run split over machines owns only its workers' shard folders.
  if (own.count === 1) refuseUsedFolder(runDir);
  else for (const s of shards) refuseUsedFolder(join(runDir, `shard-${s.index}-of-${s.count}`));
  return await runWorkers({
    shards,
    runId,
    runDir,
    flags: passedFlags(RUN_COMMAND, w.values),
    permissions: heldPermissions(hosts),
    startAt: startIso,
    progress: !w.values["no-progress"],
  });
}
