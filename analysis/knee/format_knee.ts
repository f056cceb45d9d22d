import type { Departure } from "./departure.ts";
import type { KneeResult } from "./knee.ts";
import { type ProductionLimit, rateText } from "./limit.ts";
import { roundDown } from "../latency/round_display.ts";
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";

/** Capacity figures (knees, limits) are shown rounded down, never up. */
const down = (v: number): string => String(roundDown(v));
/** "rounded down; " when the shown value is below the exact one, to open a parenthesis with. */
const downNote = (v: number): string => (roundDown(v) < v ? "rounded down; " : "");

/** Undecidable departures listed in the text; --json has them all. */
const UNDECIDABLE_SHOWN = 12;

const MARK = { ok: "", degraded: " !", undecidable: " ?", "no data": "" } as const;
const mark = (d: Departure) => (d.persistence?.status === "transient" ? " ~" : MARK[d.verdict]);

/** The transients, grouped by level: where (stage span, seconds out of line) and why each is not counted. */
function transientLines(report: KneeResult): string[] {
  if (!report.transients.length) return [];
  const out = [
    `transients (degraded at a level but not persistent, so not counted for the knee): ${report.transients.length}`,
  ];
  for (const rps of [...new Set(report.transients.map((t) => t.planned_rps))]) {
    const here = report.transients.filter((t) => t.planned_rps === rps);
    const stages = here[0]!.where.map((w) =>
      `${report.runs.length > 1 ? `${w.run_id}:` : ""}${w.stage} (${sig(w.start_ms)}–${sig(w.end_ms)} ms)`
    );
    out.push(`  @ ${sig(rps)} req/s (measured ${sig(here[0]!.offered_rps)}), ${stages.join(", ")}:`);
    for (const t of here) {
      const spans = t.where.flatMap((w) =>
        (w.out_of_line_s ?? []).map(([a, b]) =>
          `${t.where.length > 1 ? `${report.runs.length > 1 ? `${w.run_id}:` : ""}${w.stage} ` : ""}${a}–${b} s`
        )
      );
      const when = t.where.every((w) => w.out_of_line_s === null)
        ? "not measured per second"
        : spans.length
        ? `out of line at ${spans.join(", ")}`
        : "no single second out of line";
      out.push(
        `    ${t.signal}: ${sig(t.value)} vs baseline ${sig(t.baseline)} (threshold ${
          sig(t.threshold)
        }), ${when}; ${t.why}`,
      );
    }
  }
  return out;
}

/**
 * The knee report as text: the levels, every signal per level (`!`
 * degraded, `?` undecidable) and which one is the unit cost, the first
 * degrading signal with its evidence, the Kneedle knee with its points,
 * repeats' spread, and the production limit (or the headroom choices, with the note that the choice is the user's).
 * The report's verdicts are the first lines, then `header` (the CLI's policy line).
 */
export function formatKnee(report: KneeResult, limit: ProductionLimit, options: { header?: string[] } = {}): string {
  // The verdicts come first: incomplete runs, no capacity, the client's limits.
  const out: string[] = [...report.verdicts, ...(options.header ?? [])];
  out.push(`runs: ${report.runs.map((r) => `${r.run_id} (${r.dir})`).join(", ")}`);
  if (report.runs.length > 1) out.push(`repeats of one plan: ${report.repeat_basis}`);
  for (const w of report.warnings) out.push(`WARNING: ${w}`);
  for (const s of report.skipped) out.push(`skipped: ${s.run_id} stage ${s.stage}: ${s.reason}`);

  const observed = report.level_basis === "observed";
  out.push(
    "",
    observed
      ? "load levels (the recording's stage windows at their OBSERVED rates of sampled user actions, not planned; " +
        "offered rate measured = offered / seconds)"
      : "load levels (steady and burst stages grouped by planned rate; offered rate measured = offered / seconds)",
    "cached input = Σ cached_input_tokens / Σ input_tokens of the level's requests, from the target's usage (0 when " +
      "it reports none): a share that rises with the rate makes the higher levels cheaper than their traffic " +
      "(prefix caching; `deno task run --cache-bust` prevents it)",
  );
  out.push(...textTable(
    [
      observed ? "observed rps" : "planned rps",
      "offered rps",
      "stages",
      "seconds",
      "offered",
      "accepted",
      "goodput /s",
      "acceptance",
      "cached input",
    ],
    report.levels.map((l) => [
      sig(l.planned_rps),
      sig(l.pooled.offered_rps),
      l.pooled.parts.map((p) => (report.runs.length > 1 ? `${p.run_id}:${p.stage}` : p.stage)).join(","),
      sig(l.pooled.seconds),
      String(l.pooled.offered),
      String(l.pooled.accepted),
      sig(l.pooled.accepted_goodput),
      sig(l.pooled.signals.acceptance_rate?.value),
      l.pooled.cached_input.share === null ? "-" : `${(100 * l.pooled.cached_input.share).toFixed(0)} %`,
    ]),
  ));

  for (const e of report.excluded) {
    out.push(`excluded from the knee: ${sig(e.planned_rps)} req/s planned (${e.stages.join(",")}): ${e.why}`);
  }

  const levels = report.levels;
  out.push(
    "",
    `signals per level (baseline = level(s) ${report.baseline.planned_rps.join(", ")} req/s planned; ! degraded: ` +
      `beyond tolerance, confirmed by the guard at α = ${report.alpha} and persistent; ~ transient: degraded but not ` +
      "persistent, not counted; ? undecidable)",
  );
  const rows = Object.entries(report.signals).map(([key, s]) => {
    const tol = report.tolerances[key.split("@")[0]!];
    return [
      key,
      s.worse === "higher" ? "↑ worse" : "↓ worse",
      tol
        ? `${tol.rel ? `${tol.rel * 100} %` : ""}${tol.rel && tol.abs ? " + " : ""}${tol.abs ? sig(tol.abs) : ""}`
        : "",
      sig(report.baseline.point.signals[key]?.value),
      ...s.departures.map((d) => `${sig(d.value)}${mark(d)}${d.slo_undecidable ? " (SLO?)" : ""}`),
    ];
  });
  out.push(...textTable(
    [
      "signal",
      "direction",
      "tolerance",
      "baseline",
      ...levels.slice(report.baseline.planned_rps.length).map((l) => `@${sig(l.planned_rps)}`),
    ],
    rows,
  ));
  const u = report.unit_cost;
  const sheets = u.price_sheet
    ? ` (price sheet ${u.price_sheet}${u.overheads ? `, overheads ${u.overheads}` : ""})`
    : "";
  out.push(`unit cost: ${u.signal}${sheets}: ${u.note}`);

  out.push("");
  if (report.first_degrading) {
    const f = report.first_degrading;
    out.push(
      `first degrading at planned ${sig(f.planned_rps)} req/s (measured ${down(f.offered_rps)} req/s${
        roundDown(f.offered_rps) < f.offered_rps ? ", rounded down" : ""
      }): ${f.signals.join(", ")}`,
    );
    for (const key of f.signals) {
      const d = report.signals[key]!.departures.find((x) => x.planned_rps === f.planned_rps)!;
      out.push(`  ${key}: ${sig(d.value)} vs baseline ${sig(d.baseline)}: ${d.why}`);
      out.push(`    ${d.persistence?.status === "last_level" ? "unconfirmed" : "persists"}: ${d.persistence?.why}`);
    }
  } else out.push("no signal degraded persistently within the tested range");
  out.push(...transientLines(report));
  if (report.undecidable.length) {
    out.push(`undecidable (at or below the first degrading level): ${report.undecidable.length}`);
    for (const u of report.undecidable.slice(0, UNDECIDABLE_SHOWN)) {
      out.push(`  ${u.signal} @ ${sig(u.planned_rps)} req/s: ${u.why}`);
    }
    const more = report.undecidable.length - UNDECIDABLE_SHOWN;
    if (more > 0) out.push(`  … ${more} more (every one with its evidence in --json)`);
  }

  const k = report.kneedle;
  out.push(
    "",
    "Kneedle knee of accepted goodput vs measured offered rate (concave, increasing; S = " +
      `${k.result?.S ?? "-"}; normalise, difference curve y_n − x_n, threshold = local max − S·mean Δx_n)`,
  );
  out.push(`  points: ${k.x.map((x, i) => `(${sig(x)}, ${sig(k.y[i])})`).join(" ")}`);
  const range = k.result?.y_range;
  if (range) {
    out.push(
      `  goodput normalised over ${sig(range.min)}–${sig(range.max)} /s (the levels up to its peak, the whole curve ` +
        "when those are all equal: a fall past the peak does not set the scale); the lowest level is never the knee",
    );
  }
  for (const e of k.excluded) out.push(`  left out: ${sig(e.offered_rps)} req/s: ${e.why}`);
  if (k.result?.knee != null) {
    const diff = k.result.y_difference.map((y) => sig(y)).join(" ");
    const maxima = k.result.maxima.map((m) => `#${m.index}: T = ${sig(m.threshold)}`).join(", ");
    out.push(`  knee: ${rateText(k.result.knee)} (goodput ${sig(k.result.knee_y)} /s)`);
    out.push(`  difference curve: ${diff}; maxima ${maxima}`);
  } else out.push(`  no knee: ${k.note}`);
  for (const r of report.kneedle_by_run) {
    out.push(`  run ${r.run_id} alone: ${r.knee === null ? r.note : rateText(r.knee)}`);
  }
  const own = report.kneedle_by_run.map((r) => r.knee);
  if (own.length > 1 && new Set(own).size > 1) {
    const known = own.filter((k): k is number => k !== null);
    out.push(
      `  the runs disagree (${known.length ? `${down(Math.min(...known))}–${down(Math.max(...known))} req/s` : "-"}${
        known.length < own.length ? ", some without a knee" : ""
      }): the knee is not decided more finely than that; run more repeats or longer steps`,
    );
  }

  const multi = levels.filter((l) => l.repeats.length > 1);
  if (multi.length) {
    out.push("", "repeats (each value kept; the tested value pools their requests):");
    for (const l of multi) {
      const acc = l.repeats.map((r) => sig(r.signals.acceptance_rate?.value)).join(", ");
      const gp = l.repeats.map((r) => sig(r.accepted_goodput)).join(", ");
      out.push(`  ${sig(l.planned_rps)} req/s: acceptance ${acc}; goodput ${gp}`);
    }
  }
  if (report.acceptance_floor) {
    const f = report.acceptance_floor;
    out.push("", `acceptance floor ${f.floor}:`);
    for (const l of f.levels) out.push(`  ${sig(l.planned_rps)} req/s: ${l.why}`);
  }

  out.push("");
  if (report.knee) {
    const src = report.knee.source === "departure"
      ? `first departure (${report.knee.signal})`
      : "Kneedle knee of accepted goodput";
    const x = report.knee.offered_rps;
    out.push(
      `knee: ${down(x)} req/s offered (${
        downNote(x)
      }the lower of the first persistent departure and the Kneedle knee: ${src})`,
    );
  } else if (report.no_capacity) out.push(`knee: none — ${report.no_capacity}`);
  else out.push("knee: none found within the tested range");
  if (limit.limit_rps !== null) {
    out.push(`production limit: ${down(limit.limit_rps)} req/s (${downNote(limit.limit_rps)}${limit.note})`);
  } else if (limit.choices.length) {
    out.push(`production limit: not applied — ${limit.note}`);
    out.push(
      ...textTable(
        ["headroom", "limit rps (rounded down; exact in --json)"],
        limit.choices.map((c) => [`${c.headroom * 100} %`, down(c.limit_rps)]),
      ).map((l) => `  ${l}`),
    );
  } else out.push(`production limit: ${limit.note}`);
  return out.join("\n");
}
