/**
 * The text of {@linkcode providerQuota}: `analyze`'s section and the report's table cells.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import type { ProviderQuotaResult, QuotaLeast, QuotaStageRow, TierRow } from "./provider_quota.ts";

/** A least remaining share as `remaining/limit (p %)`, `-` when not stated. */
export function leastText(l: QuotaLeast | null): string {
  return l ? `${l.remaining}/${l.limit} (${sig(l.fraction * 100, 3)} %)` : "-";
}

/** The per-stage table's header. */
export const QUOTA_HEAD = [
  "stage",
  "goodput/s",
  "accept",
  "attempts",
  "with limits",
  "429",
  "least requests left",
  "least tokens left",
  "quota req/s",
  "quota tok/s",
];

/** One stage's cells under {@linkcode QUOTA_HEAD}. */
export function quotaCells(s: QuotaStageRow): string[] {
  return [
    s.stage,
    sig(s.accepted_goodput),
    sig(s.acceptance_rate),
    String(s.attempts),
    String(s.with_limits),
    String(s.rate_limited),
    leastText(s.least_requests),
    leastText(s.least_tokens),
    sig(s.quota_rps),
    sig(s.quota_tokens_per_s),
  ];
}

/** The served-tier table's header. */
export const TIER_HEAD = ["stage", "route", "requested", "served", "attempts", ""];

/** One tier row's cells under {@linkcode TIER_HEAD}. */
export function tierCells(t: TierRow): string[] {
  return [t.stage, t.route, t.requested ?? "-", t.served ?? "-", String(t.attempts), t.mismatch ? "OTHER TIER" : ""];
}

/**
 * `analyze`'s section: the line saying which bound first (only that line when no quota header was recorded), the
 * per-stage table, then the served tiers when any is recorded.
 *
 * @example Nothing recorded: one line
 * ```ts
 * import { formatProviderQuota } from "./format_provider_quota.ts";
 * import assert from "node:assert/strict";
 * const none = { by: "not_recorded" as const, stage: null, line: "provider quota: no quota headers recorded" };
 * assert.equal(
 *   formatProviderQuota({ recorded: false, bound: none, stages: [], tiers: [], tier_line: null, rules: [] }),
 *   "provider quota: no quota headers recorded",
 * );
 * ```
 */
export function formatProviderQuota(q: ProviderQuotaResult): string {
  const out = [q.bound.line];
  if (q.recorded) {
    out.push(
      "(per stage, from the rate limits each response head stated; the vendor's quota is not the capacity; " +
        "rules in --json and docs/analysis.md#the-providers-quota)",
      ...textTable(QUOTA_HEAD, q.stages.map(quotaCells)),
    );
  }
  if (q.tier_line) out.push(q.tier_line, ...textTable(TIER_HEAD, q.tiers.map(tierCells)));
  return out.join("\n");
}
