/**
 * The price lines a sensitivity analysis varies: every price on the price sheet (for the routes the runs used) and on
 * the overheads sheet, each with its current value, unit and source, whether it is an assumption, and the sheets
 * rebuilt with one price changed. The `--range` flags' parsers.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { OverheadSheet, PriceSheet } from "../../schema/prices.ts";

/**
 * Words that mark a source as an assumption rather than a quote or a measurement, in capitals as the shipped sheets
 * write them ("ILLUSTRATIVE ASSUMPTION, not a quote: …").
 */
export const ASSUMPTION_MARK = /\b(ILLUSTRATIVE|ASSUMPTIONS?|ASSUMED|PLACEHOLDER)\b/;

/** One price a sensitivity analysis can vary. */
export interface PriceLine {
  /** Its path in its sheet: `routes.<key>.<field>` (price sheet) or `overheads.<section>.<field>`. */
  id: string;
  sheet: "prices" | "overheads";
  /** Its keys in its sheet (a route key or tool name may hold dots, so the id is not split). */
  path: string[];
  /** In words, e.g. "selfhosted GPU-hour". */
  label: string;
  unit: string;
  /** The sheet's value. */
  value: number;
  /** The source the ledger prints for it (the route's or section's own, else the sheet's). */
  source: string;
  /** Why it is an assumption (its source says so, or the caller said so); null: sourced. */
  assumed: string | null;
  /** The same price in another unit, for the break-even (human review per hour → per review minute). */
  also: { factor: number; unit: string } | null;
}

/** A caller's range for one line: `--range LINE=LOW:HIGH`, in the line's unit. */
export interface RangeSpec {
  /** The line as given: its id or a unique end of it (`gpu_hour`, `selfhosted.gpu_hour`). */
  line: string;
  low: number;
  high: number;
  /** The flag as given, for errors. */
  flag: string;
}

const HOSTED_FIELDS: [string, string, string][] = [
  ["input_per_mtok", "input price", "per Mtok of uncached input"],
  ["cached_input_per_mtok", "cached-input price", "per Mtok of cached input"],
  ["output_per_mtok", "output price", "per Mtok of output"],
  ["reasoning_per_mtok", "reasoning price", "per Mtok of reasoning"],
  ["cache_write_per_mtok", "cache-write price", "per Mtok of cache writes"],
  ["per_request", "per-attempt fee", "per charged attempt"],
];

function assumedBy(source: string): string | null {
  const m = ASSUMPTION_MARK.exec(source);
  return m ? `its source says ${m[1]}` : null;
}

/**
 * Every price line of the sheets that the runs' routes use (`routeKeys`: the price-sheet keys their attempts are
 * priced by): hosted token prices and fee (a null price is not a line of its own: it follows the price it defaults
 * to), self-hosted GPU-hour and operations, and each overhead price, a judge model's input and output price
 * (`overheads.evaluation.judge_models.<model>.input_per_mtok`) and the reviewer's hourly price among them (which
 * prices recorded review minutes and expected reviews alike). `assumed` adds the caller's assumptions by line
 * id.
 */
export function priceLines(
  prices: PriceSheet,
  overheads: OverheadSheet | null,
  routeKeys: readonly string[],
  assumed: Readonly<Record<string, string>> = {},
): PriceLine[] {
  const out: PriceLine[] = [];
  const cur = prices.currency;
  const push = (l: Omit<PriceLine, "assumed" | "also"> & { also?: PriceLine["also"] }) =>
    out.push({ ...l, also: l.also ?? null, assumed: assumed[l.id] ?? assumedBy(l.source) });
  for (const key of [...routeKeys].sort()) {
    const p = prices.routes[key];
    if (!p) continue;
    const source = p.source ?? prices.source;
    if (p.kind === "hosted") {
      for (const [field, what, per] of HOSTED_FIELDS) {
        const v = (p as unknown as Record<string, number | null>)[field];
        if (typeof v !== "number") continue;
        push({
          id: `routes.${key}.${field}`,
          sheet: "prices",
          path: ["routes", key, field],
          label: `${key} ${what}`,
          unit: `${cur} ${per}`,
          value: v,
          source,
        });
      }
    } else {
      push({
        id: `routes.${key}.gpu_hour`,
        sheet: "prices",
        path: ["routes", key, "gpu_hour"],
        label: `${key} ${p.gpu_type} GPU-hour`,
        unit: `${cur} per GPU-hour`,
        value: p.gpu_hour,
        source,
      });
      push({
        id: `routes.${key}.operations_per_hour`,
        sheet: "prices",
        path: ["routes", key, "operations_per_hour"],
        label: `${key} deployment operations`,
        unit: `${cur} per deployment hour`,
        value: p.operations_per_hour,
        source,
      });
    }
  }
  if (!overheads) return out;
  const o = overheads;
  const src = (s?: string) => s ?? o.source;
  const over = (
    path: string[],
    label: string,
    unit: string,
    value: number,
    source: string,
    also?: PriceLine["also"],
  ) =>
    push({
      id: `overheads.${path.join(".")}`,
      sheet: "overheads",
      path,
      label,
      unit: `${cur} ${unit}`,
      value,
      source,
      ...(also ? { also } : {}),
    });
  over(["retrieval", "per_call"], "retrieval call", "per call", o.retrieval.per_call, src(o.retrieval.source));
  over(["tools", "per_call"], "tool call", "per call", o.tools.per_call, src(o.tools.source));
  for (const [tool, v] of Object.entries(o.tools.per_tool).sort(([a], [b]) => (a < b ? -1 : 1))) {
    over(["tools", "per_tool", tool], `${tool} call`, "per call", v, src(o.tools.source));
  }
  over(["storage", "per_gb_month"], "storage", "per GB-month", o.storage.per_gb_month, src(o.storage.source));
  const obs = src(o.observability.source);
  over(
    ["observability", "per_request"],
    "observability per request",
    "per sent request",
    o.observability.per_request,
    obs,
  );
  over(["observability", "per_attempt"], "observability per span", "per attempt", o.observability.per_attempt, obs);
  const ev = o.evaluation;
  for (const [model, p] of Object.entries(ev?.judge_models ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const judgeSource = p.source ?? src(ev!.source);
    for (const [field, kind] of [["input_per_mtok", "input"], ["output_per_mtok", "output"]] as const) {
      over(
        ["evaluation", "judge_models", model, field],
        `judge ${model} ${kind} price`,
        `per Mtok of judge ${kind}`,
        p[field],
        judgeSource,
      );
    }
  }
  over(
    ["human_review", "hourly"],
    "human review",
    "per reviewer hour",
    o.human_review.hourly,
    src(o.human_review.source),
    {
      factor: 1 / 60,
      unit: `${cur} per review minute`,
    },
  );
  over(
    ["allocated_operations", "per_hour"],
    "shared operations",
    "per window hour",
    o.allocated_operations.per_hour,
    src(o.allocated_operations.source),
  );
  return out;
}

/**
 * The sheets with one line's price set to `value`, validated again by the schema's parse (so a modified sheet is
 * exactly one a user could have written). The inputs are not changed.
 */
export function withPrice(
  line: PriceLine,
  value: number,
  prices: PriceSheet,
  overheads: OverheadSheet | null,
): { prices: PriceSheet; overheads: OverheadSheet | null } {
  const root = structuredClone(line.sheet === "prices" ? prices : overheads) as Record<string, unknown>;
  let node = root;
  for (const k of line.path.slice(0, -1)) node = node[k] as Record<string, unknown>;
  node[line.path.at(-1)!] = value;
  return line.sheet === "prices"
    ? { prices: PriceSheet.parse(root), overheads }
    : { prices, overheads: OverheadSheet.parse(root) };
}

/**
 * Parses one `--range LINE=LOW:HIGH` (prices in the line's unit, LOW ≤ HIGH, both ≥ 0). Whether LINE exists and the
 * range holds the sheet's price is checked by the sensitivity analysis, which knows the sheets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRangeFlag } from "./sensitivity_lines.ts";
 * assert.deepEqual(parseRangeFlag("gpu_hour=1.5:6"), { line: "gpu_hour", low: 1.5, high: 6, flag: "--range gpu_hour=1.5:6" });
 * assert.throws(() => parseRangeFlag("gpu_hour=6:1.5"), /--range gpu_hour=6:1.5: LOW 6 is above HIGH 1.5/);
 * ```
 */
export function parseRangeFlag(value: string): RangeSpec {
  const flag = `--range ${value}`;
  const m = /^([^=\s]+)=([^:]+):(.+)$/.exec(value.trim());
  if (!m) throw new InputError(`${flag}: expected LINE=LOW:HIGH (e.g. --range routes.selfhosted.gpu_hour=1.5:6)`);
  const lowText = m[2]!, highText = m[3]!;
  const low = Number(lowText), high = Number(highText);
  for (const [name, v, text] of [["LOW", low, lowText], ["HIGH", high, highText]] as const) {
    if (!Number.isFinite(v) || text.trim() === "") throw new InputError(`${flag}: ${name} "${text}" is not a number`);
    if (v < 0) throw new InputError(`${flag}: ${name} ${v} is negative (a price is ≥ 0)`);
  }
  if (low > high) throw new InputError(`${flag}: LOW ${low} is above HIGH ${high}`);
  return { line: m[1]!, low, high, flag };
}

/**
 * Parses `--range-factor LOW:HIGH`: every line without a `--range` of its own is varied from LOW × to HIGH × its
 * price (0 ≤ LOW ≤ 1 ≤ HIGH, so the range holds the price).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRangeFactor } from "./sensitivity_lines.ts";
 * assert.deepEqual(parseRangeFactor("0.5:2"), { low: 0.5, high: 2 });
 * assert.throws(() => parseRangeFactor("1.2:2"), /--range-factor 1.2:2: .*contain 1/);
 * ```
 */
export function parseRangeFactor(value: string): { low: number; high: number } {
  const flag = `--range-factor ${value}`;
  const m = /^([^:]+):(.+)$/.exec(value.trim());
  const low = Number(m?.[1]), high = Number(m?.[2]);
  if (!m || !Number.isFinite(low) || !Number.isFinite(high) || m[1]!.trim() === "" || m[2]!.trim() === "") {
    throw new InputError(`${flag}: expected LOW:HIGH factors of each price (e.g. --range-factor 0.5:2)`);
  }
  if (low < 0 || low > 1 || high < 1) {
    throw new InputError(`${flag}: the factors must contain 1 (the sheet's price) with LOW ≥ 0: 0 ≤ LOW ≤ 1 ≤ HIGH`);
  }
  return { low, high };
}

/**
 * The line a `--range` names: its id, or the one line whose id ends with `.LINE`. Unknown or ambiguous names are an
 * {@linkcode InputError} naming the flag and the lines there are.
 */
export function resolveRangeLine(spec: RangeSpec, lines: readonly PriceLine[]): PriceLine {
  const exact = lines.find((l) => l.id === spec.line);
  if (exact) return exact;
  const hits = lines.filter((l) => l.id.endsWith(`.${spec.line}`));
  if (hits.length === 1) return hits[0]!;
  const known = lines.map((l) => l.id).join(", ");
  throw new InputError(
    hits.length
      ? `${spec.flag}: "${spec.line}" names ${hits.length} lines (${
        hits.map((l) => l.id).join(", ")
      }); give the whole id`
      : `${spec.flag}: no price line "${spec.line}" (lines: ${known || "none"})`,
  );
}
