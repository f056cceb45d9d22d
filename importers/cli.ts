/**
 * `npx deno task import --from TOOL FILE... --out DIR [--slo F] [--json]`: another tool's result files (or OpenTelemetry
 * traces) written into a run folder of the contract (requests/attempts/tools as CSV and Parquet through the runner's
 * own writers, run.json of kind `imported` with every file's sha256 and what the source lacks), or, for a summary with
 * no per-request records, into claims for `npx deno task audit` (DIR/claims.json and DIR/claims/*.json), through `importPeer`
 * (import_peer.ts), the same path as the public API's. docs/importing.md.
 *
 * @module
 */
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { ImportedTool } from "../schema/imported_manifest.ts";
import { importPeer } from "./import_peer.ts";
import { formatImportSummary } from "./import_summary.ts";

/** `npx deno task import`: its flags, arguments and help (lib/command.ts). */
export const IMPORT_COMMAND = {
  name: "import",
  invocation: "npx deno task import",
  summary: "writes another tool's result files as a run folder of the contract, with what the source lacks, or a " +
    "summary with no per-request records as claims for `npx deno task audit`",
  details: [
    "The run folder holds requests/attempts/tools as CSV and Parquet (the runner's own writers) and a run.json of " +
    "kind `imported` with every source file's sha256 and, field by field, what the source lacks (docs/importing.md).",
  ],
  positionals: [{
    name: "FILE",
    noun: "FILE to import",
    description: "the tool's result files (generic: the per-request JSONL/CSV and its mapping file; otlp: OTLP/JSON " +
      "trace files, one document or one per line)",
    min: 1,
  }],
  flags: {
    from: {
      type: "string",
      arg: "TOOL",
      required: true,
      choices: ImportedTool.options,
      description: "the tool that wrote the files",
    },
    out: {
      type: "string",
      arg: "DIR",
      required: true,
      description: "a new (or empty) folder: the run folder, or claims.json for a summary-only source",
    },
    slo: {
      type: "string",
      arg: "FILE",
      description: "an SLO policy copied into the run folder as its default (classes the import has — `imported` for " +
        "a peer tool's files — or a default only)",
    },
    json: { type: "boolean", description: "print a machine-readable summary" },
  },
  examples: [
    "npx deno task import --from aiperf data/peers/aiperf/run1/profile_export.jsonl --out /tmp/aiperf-run1 " +
    "--slo data/slo/imported-e2e-10s.json",
    "npx deno task import --from generic data/import-examples/generic_requests.csv " +
    "data/import-examples/generic_mapping.json --out /tmp/generic",
    "npx deno task import --from otlp data/import-examples/otlp_third_party.json --out /tmp/otlp",
  ],
} as const satisfies CommandSpec;

/** Total size from which progress lines go to stderr. */
const PROGRESS_BYTES = 8 << 20;

/** Runs the import. Bad input is an InputError (exit 2 through runCommand), every problem named before any work. */
export async function main({ values: v, positionals: files, check }: ParsedCommand<typeof IMPORT_COMMAND>) {
  const tool = v.from;
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
  if (v.slo !== undefined) {
    try {
      Deno.readTextFileSync(v.slo);
    } catch (e) {
      check.problems.push(`--slo ${v.slo}: cannot read: ${(e as Error).message}`);
    }
  }
  check.throwIfAny();
  const progress = bytes >= PROGRESS_BYTES ? (m: string) => console.error(`import: ${m}`) : (_: string) => {};
  progress(`reading ${files.length} file(s), ${(bytes / 1e6).toFixed(1)} MB, as ${tool}`);
  const done = await importPeer(tool!, files, v.out!, {
    ...(v.slo !== undefined ? { slo: v.slo } : {}),
    onProgress: progress,
  });
  if (done.kind === "claims") {
    const { slo_unused, ...summary } = done;
    if (slo_unused !== null) {
      console.error(`note: --slo ${slo_unused} is not used: a summary becomes claims, not a run`);
    }
    console.log(v.json ? JSON.stringify(summary, null, 2) : formatImportSummary(summary));
    return;
  }
  console.log(v.json ? JSON.stringify(done, null, 2) : formatImportSummary(done));
}

if (import.meta.main) await runCommand(IMPORT_COMMAND, main);
