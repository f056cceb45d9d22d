/**
 * What the files of several peer tools lack alike, stated once (docs/peer_definitions.md says it the same way).
 *
 * @module
 */
import type { SourceLack } from "../source.ts";

/** The tool judges no answer: our quality, schema, safety and authorization gates are n/a for its requests. */
export function noGates(): SourceLack {
  return {
    field: "gates",
    consequence: "No quality, schema, safety or authorization check: gates are n/a, not failed.",
  };
}
