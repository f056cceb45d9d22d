import pl from "nodejs-polars";
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { MAX_ROWS_INPUT_BYTES, readInputText } from "../../schema/read_input.ts";
import { COLUMNS, epochMsOf } from "../../schema/events.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { tableDtypes } from "./_dtypes.ts";
import { RESTORED_KIND } from "./run_end_rule.ts";

export { RESTORED_KIND };

const SCHEDULE_DTYPES = {
  request_id: pl.Utf8,
  scheduled_ms: pl.Float64,
  case_id: pl.Utf8,
  class: pl.Utf8,
  stage: pl.Utf8,
  shard: pl.Int64,
};

/** What restoring found for one killed shard. */
export interface Restored {
  /** Rows for requests scheduled before the cut that the log does not hold (may be empty), or null without a schedule. */
  rows: pl.DataFrame | null;
  /** Schedule entries at or after the cut (null without a schedule). */
  after_cut: number | null;
}

/**
 * The saved schedule of a killed shard (run.json `plan.schedule_file`, its
 * sha256 checked against `plan.schedule_sha256`), and the request rows it
 * implies for requests scheduled before `cutMs` that have no row in the log:
 * outcome `aborted`, error_kind {@linkcode RESTORED_KIND}, no times past
 * `scheduled_ms`, every gate null, no attempt; priority that of a logged
 * request of the same case (else 0), route the run's only target's (else
 * `unknown`), prompt_sha256 from run.json `workload.prompt_hashes`.
 * A closed loop saves no schedule before the run, and a missing file
 * restores nothing: both are warnings.
 */
export async function restoreFromSchedule(
  dir: string,
  m: RunManifest,
  requests: pl.LazyDataFrame,
  cutMs: number,
  check: (file: string, want: string) => Promise<void>,
  warning: (m: string) => void,
): Promise<Restored> {
  const none = { rows: null, after_cut: null };
  if (m.plan.mode !== "open") {
    warning(
      `${dir}: a closed loop saves no schedule before the run: requests in flight when it was killed have no row ` +
        "and cannot be restored; the denominator holds only the logged ones",
    );
    return none;
  }
  const file = join(dir, m.plan.schedule_file);
  let schedule: pl.DataFrame;
  try {
    await Deno.stat(file);
  } catch {
    warning(
      `${file}: missing: requests scheduled before the end of the log that have no row cannot be restored; ` +
        "the denominator holds only the logged ones",
    );
    return none;
  }
  // A regular file under the row cap (schema/read_input.ts), refused before it is opened: a FIFO would hang the hash.
  const text = await readInputText(file, "saved schedule", MAX_ROWS_INPUT_BYTES);
  await check(file, m.plan.schedule_sha256);
  try {
    schedule = pl.readCSV(text, { dtypes: SCHEDULE_DTYPES, hasHeader: true });
  } catch (e) {
    throw new InputError(`${file}: cannot read the saved schedule: ${(e as Error).message}`, [], { cause: e });
  }
  const missing = Object.keys(SCHEDULE_DTYPES).filter((c) => !schedule.columns.includes(c));
  if (missing.length) throw new InputError(`${file}: missing schedule columns: ${missing.join(", ")}`);
  const after = schedule.filter(pl.col("scheduled_ms").gtEq(cutMs)).height;
  const lost = await schedule.lazy().filter(pl.col("scheduled_ms").lt(cutMs))
    .join(requests.select("request_id"), { on: "request_id", how: "anti" })
    .sort("scheduled_ms").collect();
  const priorities = await requests.select("case_id", "priority").unique({ subset: ["case_id"] }).collect();
  const priorityOf = new Map(
    (priorities.getColumn("case_id").toArray() as string[]).map((c, i) => [c, priorities.getColumn("priority").get(i)]),
  );
  const n = lost.height;
  const ids = lost.getColumn("case_id").toArray() as string[];
  const route = m.targets.length === 1 ? m.targets[0]!.route : "unknown";
  const epochMs = epochMsOf(m.epoch_iso);
  const given: Record<string, unknown[]> = {
    run_id: Array(n).fill(m.run_id),
    request_id: lost.getColumn("request_id").toArray(),
    case_id: ids,
    class: lost.getColumn("class").toArray(),
    priority: ids.map((c) => Number(priorityOf.get(c) ?? 0)),
    stage: lost.getColumn("stage").toArray(),
    shard: lost.getColumn("shard").toArray().map(Number),
    route: Array(n).fill(route),
    scheduled_ms: lost.getColumn("scheduled_ms").toArray(),
    // Contract 1.6: as a writer computes it, run.json epoch_iso + scheduled_ms.
    scheduled_epoch_ms: (lost.getColumn("scheduled_ms").toArray() as number[]).map((t) => epochMs + t),
    outcome: Array(n).fill("aborted"),
    error_kind: Array(n).fill(RESTORED_KIND),
    prompt_sha256: ids.map((c) => m.workload.prompt_hashes[c] ?? ""),
  };
  const zero = new Set(["attempts", "rounds", "tool_calls", "tool_ms", "input_tokens", "cached_input_tokens"]);
  zero.add("output_tokens");
  const dtypes = tableDtypes("requests");
  const rows = pl.DataFrame(COLUMNS.requests.map((c) => {
    const values = given[c] ?? Array(n).fill(zero.has(c) ? 0 : null);
    return pl.Series(c, values, dtypes[c]!);
  }));
  return { rows, after_cut: after };
}
