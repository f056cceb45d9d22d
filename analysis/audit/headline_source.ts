/**
 * What `npx deno task audit` needs of an import folder to audit a tool's headline: a run of kind `imported` (its
 * run.json headlines, stages and per-request rows) or a summary-only import (claims.json: headlines and stages, no
 * rows).
 *
 * @module
 */
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { ImportedClaims } from "../../schema/imported_claims.ts";
import { isImported } from "../../schema/imported_manifest.ts";
import { describeIssues } from "../../schema/load.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { HeadlineRow, HeadlineSource } from "./headline_audit.ts";

/** True when `dir` holds claims.json (a summary-only import) rather than a run. */
export function isClaimsFolder(dir: string): boolean {
  try {
    return Deno.statSync(join(dir, "claims.json")).isFile;
  } catch {
    return false;
  }
}

/** The headlines and stages of a summary-only import (claims.json); no rows. */
export async function claimsSource(dir: string): Promise<HeadlineSource> {
  const file = join(dir, "claims.json");
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(file));
  } catch (e) {
    throw new InputError(`${file}: cannot read: ${(e as Error).message}`, [], { cause: e });
  }
  const res = ImportedClaims.safeParse(raw);
  if (!res.success) throw new InputError(`${file}: invalid claims file`, describeIssues(file, res.error));
  const c = res.data;
  return {
    tool: c.source.tool,
    tool_version: c.source.tool_version,
    headlines: c.headlines.map(({ claim: _c, why_not: _w, ...h }) => h),
    stages: c.stages.map((s) => ({ name: s.name, tool_duration_s: s.duration_s, totals: s.totals })),
    rows: null,
    scheduled_from: "none",
    absolute_times: false,
    lacks: c.lacks,
  };
}

/**
 * How finely a wall-clock time held as a double resolves, ms: one unit in the last place of the epoch instant, the
 * coarsest of seconds, milliseconds and nanoseconds since 1970 (a tool's epoch timestamps, whichever unit it wrote,
 * passed through such a double on their way to ms since the run's start). For 2025: 2⁸ ns = 0.000256 ms.
 *
 * @example 2025-07-09 in ns since 1970 is about 1.75e18: a double's unit in the last place there is 2⁸ ns
 * ```ts
 * import assert from "node:assert/strict";
 * import { epochGridMs } from "./headline_source.ts";
 * assert.equal(epochGridMs(Date.parse("2025-07-09T09:15:08Z")), 256e-6);
 * ```
 */
export function epochGridMs(epochMs: number): number {
  const ulp = (x: number) => 2 ** (Math.floor(Math.log2(Math.abs(x))) - 52);
  if (!(epochMs > 0)) return 0;
  return Math.max(ulp(epochMs / 1000) * 1000, ulp(epochMs), ulp(epochMs * 1e6) / 1e6);
}

const column = (run: LoadedRun, name: string) => run.requests.getColumn(name).toArray() as unknown[];
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The headlines, stages and per-request rows of an imported run; an InputError for a run of our own runner. */
export function runSource(run: LoadedRun): HeadlineSource {
  const m = run.manifest;
  if (!isImported(m)) {
    throw new InputError(`${run.dir}: not an imported run: a headline claim audits a peer tool's import`, []);
  }
  const [stage, outcome, sch, sent, first, done, out] = [
    "stage",
    "outcome",
    "scheduled_ms",
    "first_sent_ms",
    "first_token_ms",
    "completed_ms",
    "output_tokens",
  ].map((c) => column(run, c));
  const rows: HeadlineRow[] = stage!.map((s, i) => ({
    stage: String(s),
    ok: outcome![i] === "ok",
    scheduled_ms: num(sch![i]),
    sent_ms: num(sent![i]),
    first_token_ms: num(first![i]),
    completed_ms: num(done![i]),
    output_tokens: num(out![i]),
  }));
  return {
    tool: m.source.tool,
    tool_version: m.source.tool_version,
    headlines: m.source.headlines,
    stages: m.stages.map((s) => ({ name: s.name, tool_duration_s: s.tool_duration_s, totals: s.tool_totals })),
    rows,
    scheduled_from: m.timeline.scheduled_from,
    absolute_times: m.timeline.rates,
    lacks: m.lacks,
    // Wall-clock times (an epoch timeline) went through a double at the epoch's size; durations and clock times not.
    time_grid_ms: m.timeline.kind === "epoch" ? epochGridMs(Date.parse(m.epoch_iso)) : 0,
  };
}
