import { InputError } from "./errors.ts";

/** The event-log schema major version this code reads and writes. */
export const SCHEMA_VERSION = 1;

/**
 * Rejects a log whose schema major version this code does not know.
 *
 * @example Version 1 passes, version 2 is refused
 * ```ts
 * import { assertSchemaVersion } from "./version.ts";
 * import assert from "node:assert/strict";
 * assertSchemaVersion(1, "run.json");
 * assert.throws(() => assertSchemaVersion(2, "run.json"), /schema_version 2/);
 * ```
 */
export function assertSchemaVersion(found: unknown, file: string): void {
  const major = typeof found === "string" ? Number(found.split(".")[0]) : found;
  if (major !== SCHEMA_VERSION) {
    throw new InputError(
      `${file}: schema_version ${String(found)} is not supported; this reader knows major version ${SCHEMA_VERSION}`,
    );
  }
}
