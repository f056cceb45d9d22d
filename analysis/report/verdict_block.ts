/**
 * The report's first screen: one verdict line (first_screen.ts), the
 * headline cards (accepted goodput with its window and n, acceptance, knee,
 * the production limit at the chosen headroom, cost per accepted task), one
 * line per caveat with a link to its whole text, then what was measured under
 * which rules (denominator, window, the SLO file by name). The whole texts
 * are a section of their own below the figures ({@linkcode caveatsDetailHtml}).
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import type { GoodputResult } from "../goodput/goodput.ts";
import { rateText } from "../knee/limit.ts";
import { roundDown } from "../latency/round_display.ts";
import type { ReportExtras } from "../plots/extras.ts";
import { escapeHtml as esc } from "../plots/html.ts";
import { type Caveat, CAVEATS_CHECKED } from "./caveats.ts";
import { verdictOf } from "./first_screen.ts";
import type { AnyManifest } from "../../schema/imported_manifest.ts";
import { hasEpoch } from "../run/imported_run.ts";

/** What the first screen states. */
export interface VerdictInput {
  goodput: GoodputResult;
  /** The SLO policy file by name and hash (`policySourceLabel`), or where a policy given in code came from. */
  policy_source: string;
  /** The knee and limits marked on the first figure; undefined when none was computed or supplied. */
  knee: ReportExtras["knee"];
  /** Every caveat (`reportCaveats`), INVALID first: the verdict line is made from them, then one line each. */
  caveats: Caveat[];
  /** The priced ledger's waterfall, for the cost card; undefined when no price sheet was given. */
  ledger?: ReportExtras["ledger"];
  /** The route comparison, whose cost per accepted task per route the cost card lists (up to 4 routes). */
  routes?: ReportExtras["routes"];
  manifest: AnyManifest;
  format: "csv" | "parquet";
}

/** One headline figure: what it is, its value, how it was obtained. */
interface Cell {
  key: string;
  value: string;
  sub: string;
}

const pct = (h: number) => `${sig(h * 100)} %`;

/** The knee's and the limit's cells: the knee, or why there is none; the limit at the chosen headroom, or why none. */
function kneeCells(knee: VerdictInput["knee"]): [Cell, Cell] {
  if (!knee) {
    return [
      { key: "knee", value: "not computed", sub: "no knee analysis was run or supplied (see absent marks)" },
      { key: "production limit", value: "none", sub: "no knee, so no limit" },
    ];
  }
  if (knee.knee_rps === null) {
    return [
      { key: "knee", value: "none", sub: knee.knee_note ?? "the knee analysis found none" },
      { key: "production limit", value: "none", sub: "no knee, so no limit" },
    ];
  }
  const kneeCell = {
    key: "knee",
    value: rateText(knee.knee_rps),
    sub: knee.knee_signal ? `first degrading signal: ${knee.knee_signal}` : "where degradation starts",
  };
  const h = knee.headroom ?? null;
  const at = h === null ? undefined : knee.limits.find((l) => l.headroom === h);
  if (h !== null && at) {
    return [kneeCell, {
      key: "production limit",
      value: rateText(at.rps),
      sub: `knee × (1 − ${h}): the chosen headroom ${pct(h)}`,
    }];
  }
  if (h !== null) {
    return [kneeCell, { key: "production limit", value: "none", sub: `no limit given at the chosen headroom ${h}` }];
  }
  const choices = [...knee.limits].sort((a, b) => a.headroom - b.headroom)
    .map((l) => `${pct(l.headroom)} → ${roundDown(l.rps)} req/s`).join(", ");
  return [kneeCell, {
    key: "production limit",
    value: "not applied",
    sub: `no headroom chosen (--headroom H)${choices ? `; choices marked in the first figure: ${choices}` : ""}`,
  }];
}

/** The short window: its stages and seconds, and the rule that chose them. */
function windowText(d: GoodputResult["disclosure"]): string {
  const w = d.window;
  const rule = w.kind === "stages" ? w.description.split(": ")[0] : w.description;
  return `window ${w.stages.join("+")} (${sig(w.measurement_seconds)} s; ${rule})`;
}

/** The cost card: this run's ledger (Σ components / accepted tasks), or why there is none; routes when compared. */
function costCell(ledger: ReportExtras["ledger"], routes: ReportExtras["routes"]): Cell {
  const perRoute = routes && routes.routes.length <= 4
    ? `; routes: ${
      routes.routes.map((r) => `${r.route} ${r.cost_per_accepted_task === null ? "-" : sig(r.cost_per_accepted_task)}`)
        .join(", ")
    } ${routes.currency}`
    : "";
  if (!ledger) {
    return {
      key: "cost per accepted task",
      value: "not priced",
      sub: `no price sheet given (--prices FILE)${perRoute}`,
    };
  }
  const total = ledger.components.reduce((s, c) => s + c.amount, 0);
  if (ledger.accepted_tasks === 0) {
    return { key: "cost per accepted task", value: "none", sub: `no accepted task to divide by${perRoute}` };
  }
  return {
    key: "cost per accepted task",
    value: `${sig(total / ledger.accepted_tasks)} ${ledger.currency}`,
    sub: `${sig(total)} ${ledger.currency} whole ledger / ${ledger.accepted_tasks} accepted${perRoute}`,
  };
}

/** A caveat's line as HTML: severity, the line, a link to its whole text below. */
function caveatLineHtml(c: Caveat, i: number): string {
  return `<li class="gp-sev-${c.level}"><span class="gp-sev">${c.level}</span> ${esc(c.line)} ` +
    `<a href="#caveat-${i + 1}">detail</a></li>`;
}

/** The first screen's HTML: a `<section class="gp-verdict" id="verdict">`. */
export function verdictHtml(x: VerdictInput): string {
  const g = x.goodput, o = g.overall, d = g.disclosure, m = x.manifest;
  const missed = d.denominator === "offered" ? o.offered : d.denominator === "sent" ? o.sent : o.completed;
  const cells: Cell[] = [
    {
      key: "accepted goodput",
      value: `${sig(o.accepted_goodput)} tasks/s`,
      sub: `${o.accepted} accepted / ${sig(o.measurement_seconds)} s; window ${d.window.stages.join("+")}; n = ` +
        `${o.offered} offered`,
    },
    {
      key: "acceptance rate",
      value: sig(o.acceptance_rate),
      sub: `${o.accepted} accepted / ${o.offered} offered; SLO miss rate ${sig(o.slo_miss_rate)} of ${missed} ` +
        d.denominator,
    },
    ...kneeCells(x.knee),
    costCell(x.ledger, x.routes),
  ];
  const shards = `${d.files.shards} shard${d.files.shards === 1 ? "" : "s"}`;
  const p = d.production;
  const measured = `${o.accepted} accepted of ${o.offered} offered in ${sig(d.window.measurement_seconds)} s — run ` +
    (p
      ? `${m.run_id} (a production recording of ${p.app.name} ${p.app.version}, workload ${m.workload.name}, ` +
        `observed from ${p.observation.started_iso}${
          p.observation.status === "recording" ? ", still recording" : ""
        }; ` +
        `${p.parts.map((x) => x.format).join(" + ")} parts).`
      : `${m.run_id} (workload ${m.workload.name}${"version" in m.workload ? ` ${m.workload.version}` : ""}, started ${
        hasEpoch(m) ? m.epoch_iso : "at an unknown wall-clock time (imported: no epoch)"
      }; ${x.format} log, ${shards}).`);
  const rules = `denominator ${d.denominator}; ${windowText(d)}; SLO file ${x.policy_source}; accepted = completed ` +
    "(outcome ok) and meeting its class's SLO, latency limits and required gates (each rule in the disclosure below).";
  const verdict = verdictOf(x.caveats);
  const valid = verdict.status === "VALID";
  const head = verdict.line.slice(0, verdict.status.length), rest = verdict.line.slice(verdict.status.length);
  const caveats = x.caveats.length
    ? `<ul class="gp-caveat-lines">${x.caveats.map(caveatLineHtml).join("")}</ul>`
    : '<p class="gp-caveat-lines">no caveat (<a href="#caveats">what was checked</a>)</p>';
  return [
    '<section class="gp-verdict" id="verdict">',
    `<p class="gp-verdict-line ${valid ? "gp-valid" : "gp-invalid"}"${valid ? "" : ' role="alert"'}><b>${
      esc(head)
    }</b>${esc(rest)}</p>`,
    `<h1>Accepted goodput report: run ${esc(m.run_id)}</h1>`,
    '<div class="gp-headline">',
    ...cells.map((c) =>
      `<div class="gp-cell"><div class="gp-key">${esc(c.key)}</div><div class="gp-value">${
        esc(c.value)
      }</div><div class="gp-sub">${esc(c.sub)}</div></div>`
    ),
    "</div>",
    caveats,
    `<p class="gp-rules"><b>Measured:</b> ${esc(measured)}<br><b>Rules:</b> ${esc(rules)}</p>`,
    '<p class="gp-nav">Below: <a href="#figures">figures</a> · <a href="#caveats">verdicts and caveats in full</a> · ' +
    '<a href="#tables">tables</a> (goodput, latency) · <a href="#disclosure">disclosure</a> · ' +
    '<a href="#absent">absent figures and marks</a></p>',
    "</section>",
  ].join("\n");
}

/** Every caveat's whole text, each under the anchor its first-screen line links to, and what was checked. */
export function caveatsDetailHtml(caveats: readonly Caveat[]): string {
  const items = caveats.map((c, i) =>
    `<li id="caveat-${i + 1}" class="gp-sev-${c.level}"><b>${c.level} ${esc(c.label)}</b>: ${esc(c.text)} ` +
    `<span class="gp-docs">(rule: ${esc(c.docs)})</span></li>`
  );
  return [
    '<h2 id="caveats">Verdicts and caveats in full</h2>',
    items.length ? `<ol class="gp-caveat-detail">${items.join("")}</ol>` : "<p>none</p>",
    `<p class="gp-checked">Checked: ${esc(CAVEATS_CHECKED)}.</p>`,
  ].join("\n");
}

/** The first screen's CSS. */
export const VERDICT_CSS =
  `.gp-verdict-line{margin:0 0 4px;font-size:18px;line-height:1.35;padding:4px 10px;border-radius:4px}
.gp-verdict-line.gp-valid{background:#e8f5e9;border:1px solid #2e7d32}
.gp-verdict-line.gp-invalid{background:#fdecea;border:2px solid #b00020;color:#8a0016}
.gp-verdict h1{margin:6px 0 8px;font-size:15px;line-height:1.3;font-weight:600;color:#333}
.gp-headline{display:grid;grid-template-columns:repeat(5,1fr);gap:10px;margin:0 0 8px}
.gp-cell{border:1px solid #ccc;border-radius:4px;padding:6px 10px;background:#fafafa}
.gp-key{font-size:12px;color:#555;text-transform:uppercase;letter-spacing:.04em}
.gp-value{font-size:22px;font-weight:600;margin:2px 0}.gp-sub{font-size:12px;color:#444;line-height:1.35}
.gp-caveat-lines{list-style:none;margin:0 0 8px;padding:0;font-size:13px;line-height:1.45}
.gp-caveat-lines li{margin:0}.gp-sev{display:inline-block;min-width:62px;font-weight:700;font-size:11px}
.gp-sev-INVALID .gp-sev,.gp-sev-INVALID>b{color:#b00020}.gp-sev-WARNING .gp-sev,.gp-sev-WARNING>b{color:#a15c00}
.gp-sev-NOTE .gp-sev,.gp-sev-NOTE>b{color:#555}
.gp-rules{margin:0 0 6px;font-size:13px;line-height:1.4;color:#333}
.gp-nav{font-size:13px;color:#555;margin:4px 0 0}
.gp-caveat-detail{font-size:13px;line-height:1.45}.gp-docs,.gp-checked{color:#555;font-size:12px}`;
