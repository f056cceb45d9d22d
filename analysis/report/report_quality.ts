/**
 * The report's section "Quality by rubric", for a run with a quality table: the rubrics and the table's parts, the
 * raters' agreement, the disagreement record, each judge against the people (confusion matrix figure and table), and
 * each open-ended class's acceptance by quality source (figure and table).
 *
 * @module
 */
import type { SloPolicy } from "../../schema/slo.ts";
import { qualitySettings } from "../goodput/quality_source.ts";
import { acceptanceBySourceFigure } from "../plots/acceptance_by_source.ts";
import type { Figure } from "../plots/figure.ts";
import { escapeHtml as esc, figureHtml } from "../plots/html.ts";
import { judgeConfusionFigure } from "../plots/judge_confusion.ts";
import { acceptanceBySource, acceptanceBySourceCells } from "../quality/acceptance_by_source.ts";
import { judgeCalibration } from "../quality/calibration.ts";
import { raterAgreementByClass } from "../quality/rater_agreement.ts";
import { consensusStanding, raterDisagreements } from "../quality/rater_disagreements.ts";
import type { RunQuality } from "../quality/verdicts.ts";
import type { LoadedRun } from "../run/loaded_run.ts";

/** The section's HTML and the figures drawn in it. */
export interface QualitySection {
  html: string;
  figures: Figure[];
}

const f3 = (x: number | null) => (x === null ? "-" : x.toFixed(3));
const range = (lo: number | null, hi: number | null) => (lo === null ? "" : ` [${f3(lo)}, ${f3(hi)}]`);

/** The section's style: its tables hold text (verdicts, scores, notes), left-aligned. */
export const QUALITY_CSS = "#quality-section td{text-align:left;vertical-align:top}";

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const p = (text: string) => `<p>${esc(text)}</p>`;

/**
 * The section for `quality` (`loadRunQuality`): everything computed from the table by the analysis's own functions
 * (`raterAgreementByClass`, `raterDisagreements`, `judgeCalibration`, `acceptanceBySource`), at the policy's quality
 * level. The report's headline and other figures keep the policy's own (inline) quality: this section is where the
 * measured sources are read side by side.
 *
 * @example
 * ```ts ignore
 * const section = qualitySection(run, policy, (await loadRunQuality(run))!);
 * ```
 */
export function qualitySection(run: LoadedRun, policy: SloPolicy, quality: RunQuality): QualitySection {
  const level = qualitySettings(policy).level;
  const opts = { level };
  const runId = run.manifest.run_id;
  const m = quality.table.manifest;
  const parts = m.parts.map((x) => `${x.file} (${x.rows} rows: ${x.sources.join(", ")})`);
  const rubrics = m.rubrics.map((r) =>
    `${r.rubric_id} ${r.version} (sha256 ${r.sha256.slice(0, 12)}…) for ${
      [...r.applies_to.classes, ...r.applies_to.cases].join(", ")
    }: ${
      r.criteria.map((c) =>
        `${c.id} (${
          c.scale.kind === "pass_fail" ? "pass/fail" : `${c.scale.min}–${c.scale.max}, passing at ${c.scale.pass_at}`
        })`
      ).join(", ")
    }; an answer passes when every criterion passes`
  );
  const out: string[] = [
    '<h2 id="quality">Quality by rubric</h2>',
    p(
      `The quality table of run ${runId} (its quality/ folder, docs/quality.md): judges ` +
        `${quality.judges.join(", ") || "none"}; raters ${quality.raters.join(", ") || "none"}; adjudicators ` +
        `${quality.adjudicators.join(", ") || "none"}; open-ended classes ${quality.classes.join(", ") || "none"}. ` +
        "The headline and the figures above count the requests log's own quality_ok (the policy's inline source); " +
        `this section reads the table's sources side by side. Every interval: ${level * 100} %.`,
    ),
    `<ul>${
      [...rubrics.map((r) => `rubric ${r}`), ...parts.map((x) => `part ${x}`)].map((x) => `<li>${esc(x)}</li>`)
        .join("")
    }</ul>`,
  ];

  const agreement = raterAgreementByClass(quality, opts);
  const method = {
    cohen_kappa: "Cohen's kappa",
    krippendorff_alpha_nominal: "Krippendorff's alpha (nominal)",
    none: "-",
  };
  const twice = agreement.find((a) => a.class === null)?.items ?? agreement.reduce((n, a) => n + a.items, 0);
  out.push('<h3 id="quality-agreement">Agreement between raters</h3>');
  if (!twice) {
    // Nothing to measure: one line, no table of dashes.
    out.push(
      p(
        `No item was rated by two or more raters (raters: ${quality.raters.join(", ") || "none"}), so their ` +
          "agreement is not measured and there is no disagreement record; a review packet with a double-rated share " +
          "measures it (npx deno task review sample --double-share F).",
      ),
    );
  } else {
    out.push(
      p(
        "On the verdict (pass/fail), over the items two or more raters rated: Cohen's kappa with two raters, " +
          "Krippendorff's alpha with more; seeded percentile-bootstrap interval over items.",
      ),
      table(
        ["class", "coefficient", "value", "items rated twice or more", "raters", "differ on the verdict"],
        agreement.map((a) => [
          a.class ?? "all open-ended classes",
          method[a.method],
          a.method === "none" ? "no item rated twice" : `${f3(a.value)}${range(a.low, a.high)}`,
          String(a.items),
          a.raters.join(", ") || "-",
          String(a.disagreements),
        ]),
      ),
    );

    const record = raterDisagreements({ ...quality, rubrics: quality.table.rubrics });
    out.push(
      '<h3 id="quality-disagreements">The disagreement record</h3>',
      p(
        `${record.items.length} of ${record.compared} items rated by two or more raters differ (${record.differ_on_pass} ` +
          `on the verdict: ${record.adjudicated} adjudicated, ${record.unresolved} unresolved — an unresolved item is ` +
          "left out of calibration and of human acceptance). Items whose raters differ on a criterion only keep their " +
          "common verdict.",
      ),
      record.items.length
        ? table(
          ["class", "request", "differ on", "raters' verdicts and scores", "notes", "standing"],
          record.items.map((d) => [
            d.class,
            d.request_id,
            d.differs_on.join(", "),
            d.ratings.map((r) => `${r.rater}: ${r.pass ? "pass" : "fail"} ${JSON.stringify(r.scores)}`).join("; "),
            d.ratings.filter((r) => r.rationale).map((r) => `${r.rater}: ${r.rationale}`).join("; ") || "-",
            consensusStanding(d.consensus),
          ]),
        )
        : "",
    );
  }

  const figures: Figure[] = [];
  out.push('<h3 id="quality-judges">Each judge against the people</h3>');
  if (!quality.judges.length) out.push(p("No judge verdicts in the table."));
  for (const judge of quality.judges) {
    const c = judgeCalibration(quality, judge, opts);
    if (c.pooled.n === 0) {
      // No item has both this judge's verdict and a settled human one: an all-zero matrix would say nothing.
      out.push(
        p(
          `Judge ${judge}: no item has both its verdict and a settled human verdict, so the judge is not calibrated ` +
            "(its sensitivity, specificity and agreement with people are unknown); a blinded review of a sample " +
            "calibrates it (npx deno task review sample, docs/quality.md).",
        ),
      );
      continue;
    }
    const fig = judgeConfusionFigure(c, { run_id: runId });
    figures.push(fig);
    out.push(
      figureHtml(fig),
      table(
        ["class", "tp", "fp", "tn", "fn", "sensitivity", "specificity", "kappa", "n", "left out (unresolved)"],
        [...c.by_class, c.pooled].map((x) => [
          x.class ?? "pooled",
          String(x.tp),
          String(x.fp),
          String(x.tn),
          String(x.fn),
          `${f3(x.sensitivity.estimate)}${range(x.sensitivity.low, x.sensitivity.high)}`,
          `${f3(x.specificity.estimate)}${range(x.specificity.low, x.specificity.high)}`,
          `${f3(x.kappa.kappa)}${range(x.kappa.ci.low, x.kappa.ci.high)}`,
          String(x.n),
          String(
            x.class === null ? Object.values(c.unresolved).reduce((a, b) => a + b, 0) : (c.unresolved[x.class] ?? 0),
          ),
        ]),
      ),
    );
  }

  const rows = acceptanceBySource(run, policy, quality);
  const fig = acceptanceBySourceFigure(rows, { level, run_id: runId });
  figures.push(fig);
  out.push(
    '<h3 id="quality-by-source">Acceptance by quality source</h3>',
    p(
      "Each open-ended class read with every source the table holds, the other classes inline (qualityGoodput of the " +
        "policy with that class's source replaced): policy marks the policy's own source; a source that cannot be " +
        "used says why. docs/quality_goodput.md states every rule.",
    ),
    figureHtml(fig),
    table(
      ["class", "source", "", "offered", "accepted", "acceptance", "quality unknown", "refused"],
      rows.map(acceptanceBySourceCells),
    ),
  );
  return { html: `<section id="quality-section">\n${out.join("\n")}\n</section>`, figures };
}
