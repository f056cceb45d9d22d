/**
 * One import of another tool's result files, the path `npx deno task import` and a notebook share: the files read
 * (`readSource`), then a source with per-request records mapped onto the contract (`toContract`) and written as a run
 * folder of kind `imported` (`writeImportedRun`), or a summary-only source written as claims for the audit
 * (`toClaims`, `writeClaims`). docs/importing.md.
 *
 * @module
 */
import { InputError } from "../schema/errors.ts";
import type { ImportedManifest } from "../schema/imported_manifest.ts";
import { readSource } from "./sources/mod.ts";
import { toClaims } from "./to_claims.ts";
import { toContract } from "./to_contract.ts";
import { writeClaims } from "./write_claims.ts";
import { writeImportedRun } from "./write_run.ts";
import { type ClaimsImportSummary, claimsSummary, type RunImportSummary, runSummary } from "./import_summary.ts";

/** Options of {@linkcode importPeer}. */
export interface ImportPeerOptions {
  /**
   * An SLO policy file (its classes `imported`, or a default only) copied into the run folder as its default; not
   * used for a summary-only source (the result's `slo_unused` says so).
   */
  slo?: string;
  /** Called with each step (read, mapped, rows written), e.g. to print progress on large files. */
  onProgress?: (message: string) => void;
}

/** What {@linkcode importPeer} wrote: a run folder (`kind: "run"`) or claims (`kind: "claims"`), as the CLI's `--json`. */
export type PeerImport = RunImportSummary | (ClaimsImportSummary & { slo_unused: string | null });

/**
 * Imports another tool's result files into `out` (a new or empty folder): a run folder of the contract when the
 * files hold per-request records (then read it with `loadRun(out)`), else `out/claims.json` and one audit claim file
 * per latency percentile under `out/claims/` (then `loadClaim(...)` each against a run). Bad input — a file cut in
 * the middle, a wrong type, a missing key, an SLO policy naming another class — is an InputError naming the file and
 * the record, line or key; nothing is written then.
 *
 * @example The generic per-request CSV of data/import-examples becomes a run folder of kind `imported`
 * ```ts
 * import { importPeer } from "./import_peer.ts";
 * import assert from "node:assert/strict";
 * const out = await Deno.makeTempDir();
 * const done = await importPeer(
 *   "generic",
 *   ["data/import-examples/generic_requests.csv", "data/import-examples/generic_mapping.json"],
 *   out,
 *   { slo: "data/slo/imported-e2e-10s.json" },
 * );
 * assert.equal(done.kind, "run");
 * assert.equal(done.requests, 6); // the CSV's 7 lines: a header and 6 requests
 * assert.equal(JSON.parse(await Deno.readTextFile(`${out}/run.json`)).kind, "imported");
 * await Deno.remove(out, { recursive: true });
 * ```
 */
export async function importPeer(
  tool: ImportedManifest["source"]["tool"],
  files: string[],
  out: string,
  options: ImportPeerOptions = {},
): Promise<PeerImport> {
  const progress = options.onProgress ?? (() => {});
  let slo: { path: string; text: string } | undefined;
  if (options.slo !== undefined) {
    try {
      slo = { path: options.slo, text: await Deno.readTextFile(options.slo) };
    } catch (e) {
      throw new InputError(`--slo ${options.slo}: cannot read: ${(e as Error).message}`, [], { cause: e });
    }
  }
  const source = await readSource(tool, files);
  progress(`read ${source.requests.length} request records`);
  if (source.summary_only || source.requests.length === 0) {
    const written = writeClaims(out, toClaims(source));
    return { ...claimsSummary(out, written), slo_unused: slo ? slo.path : null };
  }
  const run = toContract(source);
  progress(`mapped onto the contract: ${run.requests.length} requests, ${run.attempts.length} attempts`);
  const manifest = await writeImportedRun(out, run, { ...(slo ? { slo } : {}), onProgress: progress });
  return runSummary(out, manifest, run.requests);
}
