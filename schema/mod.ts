/**
 * The contract between runner and analysis: zod schemas for the workload,
 * the arrival plan, run conditions, the event log (schema version 1), the SLO
 * policy and price sheets. TypeScript types are inferred from them.
 *
 * @example A request row is validated against the log contract
 * ```ts
 * import { COLUMNS, SCHEMA_VERSION } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.equal(SCHEMA_VERSION, 1);
 * assert.ok(COLUMNS.requests.includes("scheduled_ms"));
 * ```
 * @module
 */
export * from "./errors.ts";
export * from "./version.ts";
export * from "./load.ts";
export * from "./workload.ts";
export * from "./workload_file.ts";
export * from "./rubric.ts";
export * from "./quality.ts";
export * from "./drill.ts";
export * from "./run_name.ts";
export * from "./plan.ts";
export * from "./conditions.ts";
export * from "./events.ts";
export * from "./run_manifest.ts";
export * from "./server_metrics.ts";
export * from "./imported_manifest.ts";
export * from "./production_manifest.ts";
export * from "./imported_claims.ts";
export * from "./service_mode.ts";
export * from "./slo.ts";
export * from "./claim.ts";
export * from "./prices.ts";
export * from "./sim_profile.ts";
export * from "./routes.ts";
export * from "./import_mapping.ts";
