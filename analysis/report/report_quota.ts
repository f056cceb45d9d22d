/**
 * The report's provider-quota section, beside the per-stage goodput: which bound first (the provider's quota or the
 * service's capacity), the per-stage table of the stated limits, and the tiers served (analysis/goodput/provider_quota.ts).
 *
 * @module
 */
import { QUOTA_HEAD, quotaCells, TIER_HEAD, tierCells } from "../goodput/format_provider_quota.ts";
import type { ProviderQuotaResult } from "../goodput/provider_quota.ts";
import { escapeHtml as esc } from "../plots/html.ts";

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/**
 * The section's HTML: one paragraph when no quota header was recorded (and the served tiers, when recorded), else
 * the line, the per-stage table and the rules, in a `<details>` element open by default.
 */
export function quotaHtml(q: ProviderQuotaResult): string {
  const parts = [`<p id="provider-quota-line">${esc(q.bound.line)}</p>`];
  if (q.recorded) {
    parts.push(
      table(QUOTA_HEAD, q.stages.map(quotaCells)),
      `<ul>${q.rules.map((r) => `<li>${esc(r)}</li>`).join("")}</ul>`,
    );
  }
  if (q.tier_line) {
    parts.push(`<p id="served-tier-line">${esc(q.tier_line)}</p>`, table(TIER_HEAD, q.tiers.map(tierCells)));
  }
  return `<details id="provider-quota" open><summary>${
    esc("Provider quota per stage: the vendor's quota is not the capacity")
  }</summary>\n${parts.join("\n")}\n</details>`;
}
