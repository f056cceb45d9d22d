/**
 * An imported run before it is written (importers/to_contract.ts builds it, importers/write_run.ts writes it).
 *
 * @module
 */
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../schema/events.ts";
import type { ImportedManifest } from "../schema/imported_manifest.ts";

/** An imported run before it is written: run.json without `files`, `importer` and `slo`, and the rows. */
export interface ContractRun {
  manifest: Omit<ImportedManifest, "files" | "importer" | "slo">;
  requests: RequestRow[];
  attempts: AttemptRow[];
  /** Tool steps (a source of whole tasks: OTLP traces); none for a per-request source. */
  tools?: ToolRow[];
  /** Phases (a source of whole tasks: OTLP traces); absent for a per-request source, whose run has no phases table. */
  phases?: PhaseRow[];
}

/** Options of `toContract`. */
export interface ToContractOptions {
  /** The run id. @default `import-<tool>-<first 12 hex of the first file's sha256>` */
  run_id?: string;
}
