/**
 * How a report names its SLO policy file: by its name and the start of its
 * sha256, never by the folder it was read from (a report is forwarded; the
 * reader has neither the author's folders nor a need for them, and the hash
 * says which file it was).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";

/** Hex digits of the sha256 a policy label shows: 12 (48 bits) tell the files of any real collection apart. */
export const POLICY_SHA_CHARS = 12;

/**
 * The label of a policy file from its path and bytes: `name (sha256 <12 hex>…)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { policyLabel } from "./policy_source.ts";
 * // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
 * assert.equal(policyLabel("/home/me/slo/strict.json", new TextEncoder().encode("abc")), "strict.json (sha256 ba7816bf8f01…)");
 * ```
 */
export function policyLabel(path: string, bytes: Uint8Array): string {
  const hex = createHash("sha256").update(bytes).digest("hex");
  return `${basename(path)} (sha256 ${hex.slice(0, POLICY_SHA_CHARS)}…)`;
}

/** Reads a policy file and returns its {@linkcode policyLabel}, for `buildReport`'s `policy_source`. */
export async function policySourceLabel(path: string): Promise<string> {
  return policyLabel(path, await Deno.readFile(path));
}
