/**
 * Accepted goodput: LLM service capacity measured as accepted tasks per
 * second. This module is the public API for notebooks and scripts: the event
 * log contract (schema version 1) and its readers. The analysis functions
 * (goodput under any SLO, knee, cost ledger) are added here as they land.
 *
 * @example The contract names every column of the requests table
 * ```ts
 * import { COLUMNS, OUTCOMES } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.ok(COLUMNS.requests.includes("scheduled_ms"));
 * assert.ok(OUTCOMES.includes("client_shed"));
 * ```
 * @module
 */
export * from "./schema/mod.ts";
export * from "./analysis/mod.ts";
