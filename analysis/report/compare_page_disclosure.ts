/**
 * The comparison page's last section: every rule its figures were computed under — the SLO policy, window and
 * denominator, the price sheets and their sources, the ranked verdict's resampling and intervals, the volume
 * costing's rules, the sensitivity's rules, the production limit's rule — each part of the page that is absent
 * said so.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { escapeHtml as esc } from "../plots/html.ts";
import type { ComparePageInput } from "./compare_page_input.ts";

const list = (items: readonly string[]) => `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join("")}</ul>`;

/** The disclosure: a `<section id="disclosure">` with one titled list per part of the page. */
export function comparePageDisclosureHtml(input: ComparePageInput): string {
  const { compare: c, decision: d, volume: v, sensitivity: s, routeCosts: rc, pricing: p } = input;
  const parts: [string, string[]][] = [
    ["SLO policy, window and denominator", [
      `SLO policy file: ${input.policy_source} (one policy for every run)`,
      `denominator: ${c.policy.denominator}; window: ${c.policy.window}`,
      "accepted = completed (outcome ok) and meeting its class's SLO, latency limits and required gates",
      `per-class percentiles shown only where n supports them (one-sided confidence ${c.support_confidence})`,
      ...c.routes.flatMap((r) => r.caveats.map((x) => `run ${r.run_id}: ${x}`)),
    ]],
    [
      "Prices",
      p
        ? [
          `price sheet ${p.price_sheet.name} (as of ${p.price_sheet.as_of}); source: ${p.price_sheet.source}`,
          `overheads: ${p.overheads ?? "not priced (no --overheads sheet)"}`,
          "cost per accepted task = the cost ledger's total (every line, failed attempts and retries included) / " +
          "accepted tasks",
        ]
        : ["no price sheet given: no cost figure on this page (--prices FILE)"],
    ],
    [
      "Ranked verdict",
      d
        ? [
          ...d.method.rules,
          `strata: ${
            d.method.strata.map((x) => `${x.stage} (${x.units} ${d.method.unit === "blocks" ? "s" : "requests"})`)
              .join(", ")
          }${d.method.schedule_sha256 ? `; schedule sha256 ${d.method.schedule_sha256}` : ""}`,
          `z = ${sig(d.method.z, 6)}; level ${d.method.level}; seed ${d.method.seed}`,
        ]
        : ["absent: no ranked verdict (it needs a price sheet: --prices FILE)"],
    ],
    [
      "Cost at the planned volume",
      v
        ? [
          ...v.rules,
          ...v.measured.map((m) =>
            `measured: ${m.route} run ${m.run_id}, ${m.accepted}/${m.offered} accepted/offered, window ${m.window}`
          ),
        ]
        : ["absent: no planned demand given"],
    ],
    [
      "What would change the answer",
      s
        ? [
          ...s.disclosure.rules,
          `prices ${s.prices.name} (as of ${s.prices.as_of}); overheads ${
            s.overheads ? `${s.overheads.name} (as of ${s.overheads.as_of})` : "not priced"
          }`,
          ...s.other_assumptions.map((a) => `assumed: ${a.name}: ${a.reason}`),
        ]
        : ["absent: no sensitivity analysis given"],
    ],
    ["Knees and production limits", [
      "knee: the offered rate where a signal (tail latency, queue age, rejections, errors, validity, unit cost) " +
      "starts to degrade, confirmed by a one-sided test, or where accepted goodput bends (Kneedle), whichever is lower",
      "production limit = knee × (1 − headroom), the headroom the user's (--headroom); rates shown rounded down, " +
      "never up",
      ...(rc ? rc.routes.map((r) => `${r.route}: ${r.limit.note}`) : []),
    ]],
  ];
  return [
    '<section class="gp-disclosure" id="disclosure">',
    "<h2>Disclosure: every rule</h2>",
    ...parts.map(([title, items]) => `<h3>${esc(title)}</h3>\n${list(items)}`),
    "</section>",
  ].join("\n");
}
