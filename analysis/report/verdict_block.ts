/**
 * The report's first screen: the headline (accepted goodput, acceptance,
 * knee, the production limit at the chosen headroom), what was measured
 * under which rules (denominator, window, the SLO file by name), and every
 * caveat.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import type { GoodputResult } from "../goodput/goodput.ts";
import { rateText } from "../knee/limit.ts";
import { roundDown } from "../latency/round_display.ts";
import type { ReportExtras } from "../plots/extras.ts";
import { escapeHtml as esc } from "../plots/html.ts";
import { type Caveat, CAVEATS_CHECKED, VERDICT_CAVEATS } from "./caveats.ts";
import type { AnyManifest } from "../../schema/imported_manifest.ts";
import { hasEpoch } from "../run/imported_run.ts";

/** What the first screen states. */
export interface VerdictInput {
  goodput: GoodputResult;
  /** The SLO policy file by name and hash (`policySourceLabel`), or where a policy given in code came from. */
  policy_source: string;
  /** The knee and limits marked on the first figure; undefined when none was computed or supplied. */
  knee: ReportExtras["knee"];
  caveats: Caveat[];
  /** The run's verdicts (`runVerdicts(...).lines`): a red banner above the title; their caveats are not repeated. */
  verdicts: string[];
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

/** A caveat as HTML: its label in bold, once (a verdict line that opens with it keeps it in place). */
function caveatText(c: Caveat): string {
  return c.text.startsWith(c.label)
    ? `<b>${esc(c.label)}</b>${esc(c.text.slice(c.label.length))}`
    : `<b>${esc(c.label)}</b>: ${esc(c.text)}`;
}

/** The first screen's HTML: a `<section class="gp-verdict" id="verdict">`. */
export function verdictHtml(x: VerdictInput): string {
  const g = x.goodput, o = g.overall, d = g.disclosure, m = x.manifest;
  const missed = d.denominator === "offered" ? o.offered : d.denominator === "sent" ? o.sent : o.completed;
  const cells: Cell[] = [
    {
      key: "accepted goodput",
      value: `${sig(o.accepted_goodput)} tasks/s`,
      sub: `${o.accepted} accepted / ${sig(o.measurement_seconds)} s`,
    },
    {
      key: "acceptance rate",
      value: sig(o.acceptance_rate),
      sub: `${o.accepted} accepted / ${o.offered} offered; SLO miss rate ${sig(o.slo_miss_rate)} of ${missed} ` +
        d.denominator,
    },
    ...kneeCells(x.knee),
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
  // The run's verdicts stand above the title, before any number (as every command prints them first); the other
  // caveats follow the headline.
  const rest = x.caveats.filter((c) => !VERDICT_CAVEATS.has(c.kind));
  const alert = rest.some((c) => c.severity === "alert");
  const caveats = rest.length
    ? `<ul>${rest.map((c) => `<li class="gp-${c.severity}">${caveatText(c)}</li>`).join("")}</ul>`
    : `<p>none${x.verdicts.length ? " besides the verdicts above" : ""} (checked: ${esc(CAVEATS_CHECKED)})</p>`;
  return [
    '<section class="gp-verdict" id="verdict">',
    ...(x.verdicts.length
      ? [
        '<div class="verdicts" role="alert" style="border: 2px solid #b00020; background: #fdecea; padding: 0.2em 1em">',
        ...x.verdicts.map((v) => `<p><b>${esc(v)}</b></p>`),
        "</div>",
      ]
      : []),
    `<h1>Run ${esc(m.run_id)}: accepted goodput ${esc(sig(o.accepted_goodput))} tasks/s</h1>`,
    `<p class="gp-rules"><b>Measured:</b> ${esc(measured)}<br><b>Rules:</b> ${esc(rules)}</p>`,
    '<div class="gp-headline">',
    ...cells.map((c) =>
      `<div class="gp-cell"><div class="gp-key">${esc(c.key)}</div><div class="gp-value">${
        esc(c.value)
      }</div><div class="gp-sub">${esc(c.sub)}</div></div>`
    ),
    "</div>",
    `<div class="gp-caveats${alert ? " gp-has-alert" : ""}"${
      alert ? ' role="alert"' : ""
    }><b>Caveats</b>${caveats}</div>`,
    '<p class="gp-nav">Below: <a href="#figures">figures</a> · <a href="#tables">tables</a> (goodput, latency) · ' +
    '<a href="#disclosure">disclosure</a> · <a href="#absent">absent figures and marks</a></p>',
    "</section>",
  ].join("\n");
}

/** The first screen's CSS. */
export const VERDICT_CSS = `.gp-verdict h1{margin:0 0 8px;font-size:28px}
.gp-rules{margin:0 0 10px;font-size:14px;line-height:1.4}
.gp-headline{display:grid;grid-template-columns:repeat(4,1fr);gap:10px;margin:0 0 10px}
.gp-cell{border:1px solid #ccc;border-radius:4px;padding:6px 10px;background:#fafafa}
.gp-key{font-size:12px;color:#555;text-transform:uppercase;letter-spacing:.04em}
.gp-value{font-size:22px;font-weight:600;margin:2px 0}.gp-sub{font-size:12px;color:#444;line-height:1.35}
.gp-caveats{border:1px solid #d9a400;background:#fff8e1;border-radius:4px;padding:6px 12px;font-size:13px;line-height:1.4}
.gp-caveats.gp-has-alert{border:2px solid #b00020;background:#fdecea}
.gp-caveats ul{margin:4px 0;padding-left:18px}.gp-caveats p{margin:4px 0}.gp-caveats li.gp-alert{color:#8a0016}
.gp-nav{font-size:13px;color:#555;margin:8px 0 0}.gp-verdict .verdicts{margin:0 0 10px;font-size:14px}
.gp-verdict .verdicts p{margin:6px 0}`;
