import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import type { BreakEven, SensitivityLine, SensitivityResult } from "./sensitivity.ts";

/** Significant digits of costs and prices: enough for routes that differ in the fourth digit to differ. */
const DIGITS = 5;
const n = (v: number | null | undefined) => sig(v, DIGITS);

/** Sources in the lines table: their start (the whole in --json). */
const SOURCE_CHARS = 100;
const short = (s: string) => (s.length > SOURCE_CHARS ? `${s.slice(0, SOURCE_CHARS - 1)}…` : s);

/** "*" after an assumed line's id, in every table. */
const mark = (l: SensitivityLine) => (l.assumed ? `${l.id} *` : l.id);

function breakEvenCell(b: BreakEven, line: SensitivityLine): string {
  if (b.price === null) return `none: ${b.reason}`;
  const also = line.also ? ` (${n(b.price * line.also.factor)} ${line.also.unit})` : "";
  const x = b.factor === null ? "" : ` = ×${sig(b.factor, 3)}`;
  const range = b.within_range === null ? "" : b.within_range ? ", inside the range" : ", outside the range";
  return `${n(b.price)}${x}${also}: ${b.dearer} cheaper ${b.dearer_wins} it${range}`;
}

/**
 * The text of a {@linkcode SensitivityResult}: the routes ranked, the break-even prices of every pair (lines absent
 * from both routes or costing both the same are counted, not listed), the tornado (largest swing first), the lines
 * with their prices, ranges and sources, then one line per caveat. Assumed lines carry a `*` in every table.
 */
export function formatSensitivity(r: SensitivityResult): string[] {
  const cur = r.currency;
  const byId = new Map(r.lines.map((l) => [l.id, l]));
  const out = [
    `what would change the answer: cost per accepted task (${cur}) under prices ${r.prices.name} (as of ${r.prices.as_of}), overheads ${
      r.overheads ? `${r.overheads.name} (as of ${r.overheads.as_of})` : "not priced"
    }; denominator ${r.disclosure.denominator}; window ${r.disclosure.window}`,
    "",
    "routes by cost per accepted task",
    ...textTable(
      ["rank", "route", "run", "cost/accepted", "accepted", "offered", "rests on assumed lines"],
      r.routes.map((x) => [
        x.rank === null ? "-" : String(x.rank),
        x.route,
        x.run_id,
        n(x.cost_per_accepted_task),
        String(x.accepted),
        String(x.offered),
        x.assumed_lines.length ? x.assumed_lines.map((id) => `${id} *`).join(", ") : "none",
      ]),
      { left: 3, lastLeft: true },
    ),
  ];
  const listed = r.break_even.filter((b) => b.price !== null || /negative/.test(b.reason ?? ""));
  const hidden = r.break_even.length - listed.length;
  out.push(
    "",
    `break-even prices (each line alone; * = assumption): the price at which the pair's order flips`,
    ...textTable(
      ["pair (cheaper < dearer)", "line", "unit", "now", "gap now", "break-even"],
      listed.map((b) => {
        const l = byId.get(b.line)!;
        return [`${b.cheaper} < ${b.dearer}`, mark(l), l.unit, n(l.value), n(b.gap), breakEvenCell(b, l)];
      }),
      { left: 3, lastLeft: true },
    ),
  );
  if (hidden) {
    out.push(
      `(${hidden} pair × line combinations have no break-even: the line is absent from both routes or costs both the same per accepted task)`,
    );
  }
  out.push(
    "",
    `sensitivity (tornado): each line over its range, cost per accepted task at its low and high ends, largest swing first`,
    ...textTable(
      ["line", "range", ...r.routes.flatMap((x) => [`${x.route} low`, `${x.route} high`]), "max swing"],
      r.tornado.map((t) => [
        mark(byId.get(t.line)!),
        `${n(t.low)}–${n(t.high)}`,
        ...r.routes.flatMap((x) => {
          const e = t.effects.find((f) => f.route === x.route);
          return [n(e?.at_low), n(e?.at_high)];
        }),
        n(t.max_swing),
      ]),
      { left: 1 },
    ),
    "",
    "price lines (* = assumption: its source says so, or the caller marked it)",
    ...textTable(
      ["line", "unit", "now", "range", "basis"],
      r.lines.map((l) => [
        mark(l),
        l.unit,
        n(l.value),
        l.range ? `${n(l.range.low)}–${n(l.range.high)} (${l.range.from})` : "not varied",
        l.assumed ? `ASSUMED (${l.assumed}): ${short(l.source)}` : short(l.source),
      ]),
      { left: 2, lastLeft: true },
    ),
  );
  if (r.caveats.length) out.push("", "caveats", ...r.caveats.map((c) => `  ${c}`));
  return out;
}
