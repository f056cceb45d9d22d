import { z } from "zod";

/**
 * A service mode name as a target announces it and as a policy declares it:
 * 1 to 64 characters from `A-Z a-z 0-9 _ . : -`.
 */
export const SERVICE_MODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The response header a target announces its service mode in. */
export const SERVICE_MODE_HEADER = "x-service-mode";

/**
 * What the log records when the target's announcement is not a mode name
 * (empty, too long, other characters, or several headers joined by ", ").
 * It cannot match {@linkcode SERVICE_MODE_PATTERN}, so no policy can declare
 * it: a response with a malformed announcement is never accepted.
 */
export const MALFORMED_SERVICE_MODE = "!malformed";

/** A service mode name (zod). */
export const ServiceModeName = z.string().regex(
  SERVICE_MODE_PATTERN,
  "a service mode is 1 to 64 characters from A-Z a-z 0-9 _ . : -",
);

/**
 * The `service_mode` to record for the `x-service-mode` header value
 * `value`: null when the header is absent, the value when it is a mode name,
 * else {@linkcode MALFORMED_SERVICE_MODE}. The value is taken as sent (no
 * trimming beyond what HTTP already strips, no case folding).
 *
 * @example
 * ```ts
 * import { recordedServiceMode } from "./service_mode.ts";
 * import assert from "node:assert/strict";
 * assert.equal(recordedServiceMode(null), null);
 * assert.equal(recordedServiceMode("degraded-short"), "degraded-short");
 * assert.equal(recordedServiceMode("degraded short"), "!malformed");
 * assert.equal(recordedServiceMode("a, b"), "!malformed");
 * assert.equal(recordedServiceMode("x".repeat(65)), "!malformed");
 * ```
 */
export function recordedServiceMode(value: string | null): string | null {
  if (value === null) return null;
  return SERVICE_MODE_PATTERN.test(value) ? value : MALFORMED_SERVICE_MODE;
}
