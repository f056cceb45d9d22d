/**
 * A claim file: a published number and whatever its publisher said about
 * how it was computed. Unstated rules stay absent here; the audit fills them
 * from the defaults and lists them as assumed.
 *
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import type { SloPolicy } from "../../schema/slo.ts";
import { InputError } from "../../schema/errors.ts";
import { readInputText } from "../../schema/read_input.ts";
import { Claim, HeadlineClaim } from "../../schema/claim.ts";
import { loadSloPolicy } from "../goodput/policy.ts";

/**
 * @deprecated No longer applied: a claim that states no tolerance is compared at the precision its value was
 * published at (its text in the claim file: "0.8254" stands for ±0.00005), never at an implicit 1 %. Kept for the
 * public API's callers; use a claim's `tolerance` to state one.
 */
export const DEFAULT_TOLERANCE = { absolute: 0, relative: 0.01 } as const;

/** The claim file's schema (the contract's: schema/claim.ts). */
export { Claim, HeadlineClaim };

/**
 * A claim whose `slo` path has been read: `slo` is a policy, `slo_source` says where it came from; `value_text` is
 * `value` as the file writes it ("0.8254"), whose digits are the precision it was published at.
 */
export type ResolvedClaim = Omit<Claim, "slo"> & { slo?: SloPolicy; slo_source?: string; value_text?: string };

/**
 * A claim file's JSON, and its top-level `value` as written (JSON.parse keeps only the float: "1.50" would be 1.5).
 * Errors name the file.
 */
async function readClaimJson(file: string): Promise<{ raw: unknown; valueText: string | undefined }> {
  const texts = new Map<unknown, string>();
  // A regular file of at most 64 MiB (schema/read_input.ts): a FIFO or a device is refused before it is opened.
  const text = await readInputText(file, "claim");
  try {
    const raw = JSON.parse(
      text,
      function (this: unknown, key: string, v: unknown, context?: { source?: string }) {
        // `this` is the object holding the key: only the root's own `value` counts.
        if (key === "value" && typeof v === "number" && context?.source !== undefined) texts.set(this, context.source);
        return v;
      } as (key: string, v: unknown) => unknown,
    );
    return { raw, valueText: texts.get(raw) };
  } catch (e) {
    throw new InputError(`${file}: cannot read claim: ${(e as Error).message}`, [], { cause: e });
  }
}

/**
 * Reads and validates a claim file (JSON). A string `slo` is read as an SLO
 * policy file relative to the claim. Errors are {@linkcode InputError}s
 * naming the file and every bad field at once.
 *
 * @example A missing file is an input error naming it
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadClaim } from "./claim.ts";
 * await assert.rejects(() => loadClaim("/nonexistent/claim.json"), /\/nonexistent\/claim.json/);
 * ```
 */
export async function loadClaim(file: string): Promise<ResolvedClaim> {
  const { raw, valueText } = await readClaimJson(file);
  const res = Claim.safeParse(raw);
  if (!res.success) {
    const problems = res.error.issues.map((i) => `${file}: ${i.path.map(String).join(".") || "(root)"}: ${i.message}`);
    throw new InputError(`${file}: invalid claim`, problems);
  }
  const { slo, ...parsed } = res.data;
  const rest = valueText === undefined ? parsed : { ...parsed, value_text: valueText };
  if (slo === undefined) return rest;
  if (typeof slo !== "string") return { ...rest, slo, slo_source: `${file} (inline)` };
  const path = isAbsolute(slo) ? slo : join(dirname(file), slo);
  try {
    return { ...rest, slo: await loadSloPolicy(path), slo_source: path };
  } catch (e) {
    throw new InputError(`${file}: slo: ${(e as Error).message}`, [], { cause: e });
  }
}

/** A headline claim with its `slo` read and its `run` resolved against the claim file's folder. */
export type ResolvedHeadlineClaim = Omit<HeadlineClaim, "slo" | "run"> & {
  /** `value` as the file writes it: the precision it was published at. */
  value_text?: string;
  slo?: SloPolicy;
  slo_source?: string;
  /** The import folder, resolved; absent when the claim names none (RUN on the command line). */
  run?: string;
};

/** Either kind of claim file: a metric claim of ours, or a peer tool's headline (it has a `headline` key). */
export type AnyClaim = { kind: "metric"; claim: ResolvedClaim } | { kind: "headline"; claim: ResolvedHeadlineClaim };

/**
 * Reads a claim file of either kind: one with a `headline` key is a {@linkcode HeadlineClaim}, any other a
 * {@linkcode Claim} (read by {@linkcode loadClaim}). Errors name the file and every bad field.
 */
export async function loadAnyClaim(file: string): Promise<AnyClaim> {
  const { raw, valueText } = await readClaimJson(file);
  if (raw === null || typeof raw !== "object" || !("headline" in raw)) {
    return { kind: "metric", claim: await loadClaim(file) };
  }
  const res = HeadlineClaim.safeParse(raw);
  if (!res.success) {
    const problems = res.error.issues.map((i) => `${file}: ${i.path.map(String).join(".") || "(root)"}: ${i.message}`);
    throw new InputError(`${file}: invalid headline claim`, problems);
  }
  const { slo, run, ...rest } = res.data;
  const at = (p: string) => isAbsolute(p) ? p : join(dirname(file), p);
  const out: ResolvedHeadlineClaim = {
    ...rest,
    ...(valueText === undefined ? {} : { value_text: valueText }),
    ...(run === undefined ? {} : { run: at(run) }),
  };
  if (slo === undefined) return { kind: "headline", claim: out };
  if (typeof slo !== "string") return { kind: "headline", claim: { ...out, slo, slo_source: `${file} (inline)` } };
  try {
    return { kind: "headline", claim: { ...out, slo: await loadSloPolicy(at(slo)), slo_source: at(slo) } };
  } catch (e) {
    throw new InputError(`${file}: slo: ${(e as Error).message}`, [], { cause: e });
  }
}
