/**
 * `deno task import --from TOOL FILE... --out DIR [--slo F] [--json]`: another tool's result files written into a
 * run folder of the contract (requests/attempts/tools as CSV and Parquet through the runner's own writers, run.json
 * of kind `imported` with every file's sha256 and what the source lacks), or, for a summary with no per-request
 * records, into claims for `deno task audit` (DIR/claims.json and DIR/claims/*.json). docs/importing.md.
 *
 * @module
 */
import { InputCheck, parseFlags, runMain } from "../lib/cli.ts";
import { ImportedTool } from "../schema/imported_manifest.ts";
import { readSource } from "./sources/mod.ts";
import { toClaims } from "./to_claims.ts";
import { toContract } from "./to_contract.ts";
import { writeClaims } from "./write_claims.ts";
import { writeImportedRun } from "./write_run.ts";
import { claimsSummary, formatImportSummary, runSummary } from "./import_summary.ts";

export const USAGE = `usage: deno task import --from TOOL FILE... --out DIR [--slo FILE] [--json]
  TOOL: ${ImportedTool.options.join(", ")}
  FILE: the tool's result files (generic: the per-request JSONL/CSV and its mapping file)
  --out DIR   a new (or empty) folder: the run folder, or claims.json for a summary-only source
  --slo FILE  an SLO policy copied into the run folder as its default (class "imported" or a default only)
  --json      print a machine-readable summary`;

const FLAGS = {
  from: { type: "string" },
  out: { type: "string" },
  slo: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", default: false },
} as const;

/** Total size from which progress lines go to stderr. */
const PROGRESS_BYTES = 8 << 20;

/** Runs the import; returns the exit code. Bad input is an InputError (exit 2 through runMain). */
export async function main(args: string[]): Promise<number> {
  const { values: v, positionals: files } = parseFlags(args, FLAGS, USAGE, { positionals: true });
  if (v.help) {
    console.log(USAGE);
    return 0;
  }
  // Every flag and file is checked before anything is read or written, and every problem named at once.
  const check = new InputCheck();
  check.require(v.from === undefined, "--from TOOL is required");
  const tool = check.oneOf("from", v.from, ImportedTool.options);
  check.require(v.out === undefined, "--out DIR is required");
  check.require(files.length === 0, "give at least one FILE to import");
  let bytes = 0;
  for (const f of files) {
    try {
      const st = Deno.statSync(f);
      if (!st.isFile) check.problems.push(`${f}: not a file`);
      bytes += st.size;
    } catch (e) {
      check.problems.push(`${f}: cannot read: ${(e as Error).message}`);
    }
  }
  let slo: { path: string; text: string } | undefined;
  if (v.slo !== undefined) {
    try {
      slo = { path: v.slo, text: Deno.readTextFileSync(v.slo) };
    } catch (e) {
      check.problems.push(`--slo ${v.slo}: cannot read: ${(e as Error).message}`);
    }
  }
  check.throwIfAny(USAGE);
  const progress = bytes >= PROGRESS_BYTES ? (m: string) => console.error(`import: ${m}`) : (_: string) => {};
  progress(`reading ${files.length} file(s), ${(bytes / 1e6).toFixed(1)} MB, as ${tool}`);
  const source = await readSource(tool!, files);
  progress(`read ${source.requests.length} request records`);
  const out = v.out!;
  if (source.summary_only || source.requests.length === 0) {
    const written = writeClaims(out, toClaims(source));
    const summary = claimsSummary(out, written);
    if (slo) console.error(`note: --slo ${slo.path} is not used: a summary becomes claims, not a run`);
    console.log(v.json ? JSON.stringify(summary, null, 2) : formatImportSummary(summary));
    return 0;
  }
  const run = toContract(source);
  progress(`mapped onto the contract: ${run.requests.length} requests, ${run.attempts.length} attempts`);
  const manifest = await writeImportedRun(out, run, { ...(slo ? { slo } : {}), onProgress: progress });
  const summary = runSummary(out, manifest, run.requests);
  console.log(v.json ? JSON.stringify(summary, null, 2) : formatImportSummary(summary));
  return 0;
}

if (import.meta.main) await runMain(() => main(Deno.args));
