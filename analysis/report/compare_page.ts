/**
 * The route comparison as one self-contained HTML page to share: the verdict first (the ranked verdict line and the
 * runs' validity verdict with one line per caveat), then the routes ranked with their intervals and the headroom
 * line, the cost at the planned volume (table and figure), what would change the answer (break-even prices, the
 * tornado, assumed lines marked), per-class acceptance and latency side by side, the routes' knees and limits
 * (goodput vs load per route), the caveats in full, and the disclosure of every rule. A part whose input is missing
 * is said in one line where it would be, never left out silently. The plotly.js bundle is inlined once: the file
 * opens offline.
 *
 * @module
 */
import { costVsDemandFigure } from "../plots/cost_vs_demand.ts";
import type { Figure } from "../plots/figure.ts";
import { goodputVsLoadFigure } from "../plots/goodput_vs_load.ts";
import { escapeHtml as esc, figureHtml, pageHtml } from "../plots/html.ts";
import { tornadoFigure } from "../plots/tornado.ts";
import { comparePageDisclosureHtml } from "./compare_page_disclosure.ts";
import {
  classTablesHtml,
  kneeTableHtml,
  para,
  rankedTablesHtml,
  sensitivityTablesHtml,
  volumeTableHtml,
} from "./compare_page_tables.ts";
import { verdictOf } from "./first_screen.ts";
import type { ComparePageInput } from "./compare_page_input.ts";
import type { CompareResult } from "../compare/compare.ts";
import type { AbsentFigure } from "./report.ts";
import { TABLES_CSS } from "./report_tables.ts";
import { caveatsDetailHtml, VERDICT_CSS } from "./verdict_block.ts";

export type { ComparePageInput, ComparePricing } from "./compare_page_input.ts";

/** The result of {@linkcode buildComparePage}. */
export interface ComparePage {
  html: string;
  /** Every figure drawn, in page order. */
  figures: Figure[];
  /** Every part left out, and why (each also said in one line on the page). */
  absent: AbsentFigure[];
}

/** A figure under its own id and title (several of one kind on one page). */
function retitled(f: Figure, id: string, title: string): Figure {
  return { ...f, id, title, layout: { ...f.layout, title: { ...f.layout.title, text: title } } };
}

const NO_PRICES = "no price sheet given (--prices FILE)";

/**
 * Builds the comparison page (see the module doc). The ranked verdict, the volume costing and the sensitivity are
 * each optional: without one, its section says in one line why it is absent, and `absent` lists it.
 *
 * @example Two routes compared without prices: no ranked verdict, said so first
 * ```ts ignore
 * const cmp = compare([a, b], policy);
 * const page = buildComparePage({ compare: cmp, routeCosts: null, decision: null, volume: null, sensitivity: null,
 *   caveats: [], policy_source: "design-v1.json (sha256 …)", pricing: null });
 * await Deno.writeTextFile("compare.html", page.html);
 * ```
 */
export function buildComparePage(input: ComparePageInput): ComparePage {
  const { compare: c, routeCosts, decision: d, volume: v, sensitivity: s } = input;
  const figures: Figure[] = [];
  const absent: AbsentFigure[] = [];
  const missing = (id: string, title: string, reason: string) => {
    absent.push({ id, title, reason });
    return para(`${title}: absent — ${reason}.`, "gp-absent");
  };
  const draw = (f: Figure) => {
    figures.push(f);
    return figureHtml(f);
  };
  const routes = c.routes.map((r) => r.route);

  const ranked = d
    ? [rankedTablesHtml(d), para(d.headroom, "gp-headroom"), ...d.caveats.map((x) => para(`caveat: ${x}`, "gp-note"))]
    : [missing("ranked", "ranked verdict", input.pricing ? "not computed (decision() was not given)" : NO_PRICES)];
  const volume = v ? [volumeTableHtml(v), draw(costVsDemandFigure(v))] : [
    missing(
      "cost-vs-demand",
      "cost at the planned volume",
      input.pricing
        ? "no planned demand given (--demand RATE with --monthly N or --profile FRACTIONS)"
        : `${NO_PRICES} and no planned demand (--demand RATE with --monthly N or --profile FRACTIONS)`,
    ),
  ];
  // The sensitivity's caveats are the tornado's notes, under it.
  const sens = s ? [sensitivityTablesHtml(s, draw(tornadoFigure(s)))] : [
    missing(
      "sensitivity-tornado",
      "break-even prices and sensitivity",
      input.pricing ? "not computed (sensitivity() was not given)" : NO_PRICES,
    ),
  ];
  const knees = routeCosts
    ? routeCosts.routes.map((r) => {
      const f = goodputVsLoadFigure(r);
      return draw(retitled(f, `goodput-vs-load-${r.run_id}`, `${r.route}: ${f.title}`));
    })
    : [
      missing(
        "goodput-vs-load",
        "goodput vs offered load per route with the knee",
        input.pricing
          ? "no knee reports given (compareRouteCosts)"
          : `${NO_PRICES}: the knee curves come with the priced comparison (compareRouteCosts)`,
      ),
    ];

  const sections = [
    verdictSectionHtml(input, routes),
    section("ranked", "Routes ranked, with their intervals", ranked),
    section("volume", "Cost at the planned volume", volume),
    section("sensitivity", "What would change the answer", sens),
    section("classes", "Per class, side by side", [classTablesHtml(c), differencesHtml(c)]),
    section("knees", "Knees and production limits", [kneeTableHtml(c, routeCosts), ...knees]),
    caveatsDetailHtml(input.caveats),
    comparePageDisclosureHtml(input),
  ];
  const html = pageHtml([], {
    title: `Route comparison: ${routes.join(" vs ")}`,
    before: sections.join("\n"),
    css: VERDICT_CSS + TABLES_CSS + PAGE_CSS,
  });
  return { html, figures, absent };
}

function section(id: string, title: string, parts: string[]): string {
  return [`<section class="gp-section" id="${id}">`, `<h2>${esc(title)}</h2>`, ...parts, "</section>"].join("\n");
}

/** What differs between the runs (route and targets always; a blocking field only when forced). */
function differencesHtml(c: CompareResult): string {
  if (!c.differences.length) return para("The runs differ in nothing compare checks.", "gp-note");
  const items = c.differences.map((d) =>
    `<li>${esc(d.field)}${d.blocking ? " <b>(BLOCKING — compared only because forced)</b>" : ""}: ${
      esc(Object.entries(d.values).map(([id, v]) => `${id}=${v}`).join("; "))
    }</li>`
  );
  return `<p class="gp-note">What differs between the runs:</p><ul class="gp-notes">${items.join("")}</ul>`;
}

/**
 * The first screen: the ranked verdict line (or why there is none), the runs' validity verdict, the title, one line
 * per caveat, the headroom line, the assumptions the answer rests on, and the rules in one paragraph.
 */
function verdictSectionHtml(input: ComparePageInput, routes: string[]): string {
  const d = input.decision, s = input.sensitivity, v = input.volume;
  const validity = verdictOf(input.caveats);
  const valid = validity.status === "VALID";
  const rankLine = d
    ? d.verdict.text
    : `ranked verdict: none: ${
      input.pricing ? "not computed" : NO_PRICES
    }; the routes are side by side below, unranked by cost`;
  const head = validity.line.slice(0, validity.status.length), rest = validity.line.slice(validity.status.length);
  const caveats = input.caveats.map((x, i) =>
    `<li class="gp-sev-${x.level}"><span class="gp-sev">${x.level}</span> ${esc(x.line)} ` +
    `<a href="#caveat-${i + 1}">detail</a></li>`
  );
  // What the answer rests on that was assumed, not measured (issue 31 §3): assumed prices that drive the ranking,
  // and volumes beyond what a run measured.
  const assumed = [
    ...(s ? s.caveats.slice(0, s.driven_by.length) : []),
    ...(v?.routes.filter((r) => r.extrapolated).map((r) =>
      `the cost of ${r.route} at the planned volume is an EXTRAPOLATION beyond what its run measured`
    ) ?? []),
  ];
  const p = input.pricing;
  const rules = `SLO file ${input.policy_source}; denominator ${input.compare.policy.denominator}; window ` +
    `${input.compare.policy.window}; ${
      p
        ? `prices ${p.price_sheet.name} (as of ${p.price_sheet.as_of}), overheads ${p.overheads ?? "not priced"}`
        : "not priced"
    }${
      d
        ? `; intervals: ${d.method.level * 100} % ${d.method.paired ? "paired" : "unpaired"} bootstrap, ` +
          `${d.method.resamples} resamples of ${d.method.unit}`
        : ""
    } (every rule in the disclosure at the end).`;
  return [
    '<section class="gp-verdict" id="verdict">',
    `<p class="gp-rank-verdict${d?.verdict.kind === "cheapest" ? " gp-decided" : ""}" id="ranked-verdict">${
      esc(rankLine)
    }</p>`,
    `<p class="gp-verdict-line ${valid ? "gp-valid" : "gp-invalid"}"${valid ? "" : ' role="alert"'}><b>${
      esc(head)
    }</b>${esc(rest)}</p>`,
    `<h1>Route comparison: ${esc(routes.join(" vs "))}</h1>`,
    caveats.length
      ? `<ul class="gp-caveat-lines">${caveats.join("")}</ul>`
      : '<p class="gp-caveat-lines">no caveat (<a href="#caveats">what was checked</a>)</p>',
    d ? para(d.headroom, "gp-headroom") : "",
    assumed.length
      ? `<ul class="gp-assumptions">${assumed.map((a) => `<li><b>ASSUMED</b> ${esc(a)}</li>`).join("")}</ul>`
      : "",
    `<p class="gp-rules"><b>Rules:</b> ${esc(rules)}</p>`,
    '<p class="gp-nav">Below: <a href="#ranked">ranked</a> · <a href="#volume">cost at volume</a> · ' +
    '<a href="#sensitivity">what would change the answer</a> · <a href="#classes">per class</a> · ' +
    '<a href="#knees">knees and limits</a> · <a href="#caveats">caveats</a> · <a href="#disclosure">disclosure</a></p>',
    "</section>",
  ].join("\n");
}

/** The page's own CSS, beside the report's. */
const PAGE_CSS = `.gp-rank-verdict{margin:0 0 6px;font-size:17px;line-height:1.4;padding:6px 10px;border-radius:4px;
background:#eef3fb;border:1px solid #1f4e99}.gp-rank-verdict.gp-decided{border-width:2px}
.gp-headroom{font-size:14px;margin:0 0 6px}.gp-assumptions{font-size:13px;margin:0 0 6px;padding-left:18px;color:#7a4100}
.gp-note{font-size:13px;color:#444;margin:4px 0}.gp-notes{font-size:13px;color:#444}
.gp-absent{font-size:14px;color:#7a4100;font-style:italic}.gp-section{margin:24px 0}
.gp-section th,.gp-section td{text-align:left}.gp-section td.gp-num{text-align:right}
tr.gp-assumed td{background:#fff4e0}.gp-disclosure li{font-size:13px;line-height:1.45}`;
