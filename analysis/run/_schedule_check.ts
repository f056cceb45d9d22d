/**
 * A run's saved schedule (run.json `plan.schedule_file`, written before ms 0 with its sha256 in
 * `plan.schedule_sha256`) is tamper evidence like the log files: every reader checks it, whether or not it reads its
 * rows (a killed run's are restored from it).
 *
 * @module
 */
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { type AnyManifest, isRunnerRun } from "../../schema/imported_manifest.ts";
import { checkInputFile, MAX_ROWS_INPUT_BYTES } from "../../schema/read_input.ts";

/** Checks a schedule file's sha256 against run.json's. */
export type ScheduleCheck = (file: string, want: string) => Promise<void>;

/** The check under a reader's `verify` mode: a mismatch refused (`strict`) or a loud warning (`warn`). */
export function scheduleCheck(o: {
  verify: "strict" | "warn";
  warning: (m: string) => void;
  hash: (file: string) => Promise<string>;
}): ScheduleCheck {
  return async (file, want) => {
    const got = await o.hash(file);
    if (got === want) return;
    const msg = `${file}: sha256 ${got} does not match run.json plan.schedule_sha256 ${want}: the schedule was changed`;
    if (o.verify === "warn") o.warning(`UNVERIFIED SCHEDULE: ${msg}`);
    else throw new InputError(msg);
  };
}

/**
 * Checks an open-loop shard's saved schedule when it is there: a regular file under the row cap (a FIFO would hang the
 * hash) whose sha256 is run.json's. A folder copied without it is let through (nothing to check); a closed loop saves
 * none. A killed shard's is checked where its rows are restored (`skip`).
 */
export async function checkSavedSchedule(dir: string, m: AnyManifest, check: ScheduleCheck): Promise<void> {
  if (!isRunnerRun(m) || m.plan.mode !== "open") return;
  const file = join(dir, m.plan.schedule_file);
  try {
    await Deno.lstat(file);
  } catch {
    return;
  }
  await checkInputFile(file, "saved schedule", MAX_ROWS_INPUT_BYTES);
  await check(file, m.plan.schedule_sha256);
}
