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
  };
}
