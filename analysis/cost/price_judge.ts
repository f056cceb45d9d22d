import type { JudgeModelPrice, OverheadSheet } from "../../schema/prices.ts";
import { type QualityPart, type QualityRow, sourceKind } from "../../schema/quality.ts";
import type { QualityTable } from "../../schema/quality_file.ts";
import { NOT_PRICED_MARK, overheadSource } from "./_overhead_source.ts";
import type { LineBook } from "./price_lines.ts";

/** What the ledger charged for one part of the quality table that holds a model judge's verdicts. */
export interface JudgeCharge {
  /** The part's file in RUN/quality/. */
  part: string;
  /** The judge models of its verdicts (`judge:<model>`); the part's details.model when it has no verdict. */
  models: string[];
  /**
   * Where its token counts come from. `part totals`: the part's details.input_tokens and output_tokens, which the
   * judge records over every call (retries, items left unjudged); `rows`: the sum of its verdicts' own counts, the
   * part recording no totals.
   */
  basis: "part totals" | "rows";
  /** Its judge verdicts (items judged), and of those, on the window's requests. */
  items: number;
  items_in_window: number;
  /** Its tokens as recorded (`basis`). */
  input_tokens: number;
  output_tokens: number;
  /** Of those, the tokens of calls on items left unjudged: the totals minus the verdicts' own. */
  unjudged_input_tokens: number;
  unjudged_output_tokens: number;
  /** The tokens charged to the window's requests: their verdicts' own plus their share of the unjudged. */
  charged_input_tokens: number;
  charged_output_tokens: number;
  /** Its models with no price on the overheads sheet: their tokens are listed at 0, NOT PRICED. */
  not_priced: string[];
}

const tokens = (v: unknown): number | null => (Number.isSafeInteger(v) && (v as number) >= 0 ? v as number : null);

/**
 * The parts of a quality table with their rows: `readQuality` returns the rows of every part in part order, each part
 * its listed count (it refuses a table otherwise).
 */
function partRows(table: QualityTable): { part: QualityPart; rows: QualityRow[] }[] {
  let at = 0;
  const out = table.manifest.parts.map((part) => {
    const rows = table.rows.slice(at, at + part.rows);
    at += part.rows;
    return { part, rows };
  });
  if (at !== table.rows.length) {
    throw new Error(`quality table: its parts list ${at} rows, ${table.rows.length} were read`);
  }
  return out;
}

/**
 * Prices a model judge's tokens as recorded, part by part of the quality table. A part holds a judge's verdicts
 * (`judge:<model>` rows) and, in `details`, its totals over every call: `input_tokens` and `output_tokens`. Each
 * verdict on a request of the window is charged to that request: its own input and output tokens (every call for that
 * item, retries included) at its model's price per million (overheads `evaluation.judge_models`), plus an equal share
 * of the tokens of the calls that left items unjudged (the totals minus the sum over the part's verdicts), spread
 * over the part's verdicts and charged at each one's model. Without totals, the verdicts' own tokens alone (said in
 * `basis`). Verdicts outside the window are not charged, as their requests' attempts are not. A part with totals but
 * no verdict is charged whole, unallocated. A model with no price is NOT PRICED: listed at 0 with a warning, never
 * priced at a guess.
 */
export function priceJudge(
  book: LineBook,
  quality: { table: QualityTable; index: ReadonlyMap<string, number> } | null,
  sheet: OverheadSheet | null,
  warnings: string[],
): JudgeCharge[] {
  if (!quality) return [];
  const out: JudgeCharge[] = [];
  const unpriced = new Map<string, { input: number; output: number }>();
  const price = (model: string): { p: JudgeModelPrice | null; source: string } => {
    const p = sheet?.evaluation?.judge_models[model] ?? null;
    if (p) return { p, source: overheadSource(sheet, p.source ?? sheet!.evaluation!.source, p.as_of) };
    const why = sheet
      ? `no price for judge model "${model}" (overheads sheet "${sheet.name}", evaluation.judge_models)`
      : "no overheads sheet given (--overheads)";
    return { p: null, source: `${NOT_PRICED_MARK}: ${why}` };
  };
  const charge = (model: string, kind: "input" | "output", detail: string, count: number, req: number | null) => {
    const { p, source } = price(model);
    const key = {
      item: "judge" as const,
      route: null,
      detail: `judge ${model}: ${kind} tokens, ${detail}`,
      unit: "Mtok",
      unit_price: p ? (kind === "input" ? p.input_per_mtok : p.output_per_mtok) : 0,
      source,
    };
    if (req === null) book.addSpread(key, count / 1e6, new Float64Array(0));
    else book.add(key, count / 1e6, req);
    if (!p) {
      const u = unpriced.get(model) ?? unpriced.set(model, { input: 0, output: 0 }).get(model)!;
      u[kind] += count;
    }
  };

  for (const { part, rows } of partRows(quality.table)) {
    const judged = rows.filter((r) => sourceKind(r.source) === "judge");
    const model = typeof part.details.model === "string" ? part.details.model : null;
    const totalIn = tokens(part.details.input_tokens), totalOut = tokens(part.details.output_tokens);
    const totals = totalIn !== null && totalOut !== null;
    if (!judged.length && !(totals && model !== null)) continue;
    const models = judged.length ? [...new Set(judged.map((r) => r.source.slice("judge:".length)))].sort() : [model!];
    const rowIn = judged.reduce((s, r) => s + (r.input_tokens ?? 0), 0);
    const rowOut = judged.reduce((s, r) => s + (r.output_tokens ?? 0), 0);
    let restIn = totals ? totalIn - rowIn : 0, restOut = totals ? totalOut - rowOut : 0;
    if (restIn < 0 || restOut < 0) {
      warnings.push(
        `judge part ${part.file}: its recorded totals (${totalIn} input, ${totalOut} output tokens) are below the sum ` +
          `of its verdicts' (${rowIn}, ${rowOut}): charged by its verdicts' own counts`,
      );
      restIn = Math.max(restIn, 0);
      restOut = Math.max(restOut, 0);
    }
    const noTokens = judged.filter((r) => r.input_tokens === null || r.output_tokens === null).length;
    const noUsage = tokens(part.details.replies_without_usage) ?? 0;
    if (noTokens && !totals) {
      warnings.push(
        `judge part ${part.file}: ${noTokens} of its ${judged.length} verdicts record no token counts and the part ` +
          `no totals: their tokens are not known and not charged`,
      );
    } else if (totals && (noUsage || noTokens)) {
      warnings.push(
        `judge part ${part.file}: ${noUsage || noTokens} ${noUsage ? "replies carried" : "verdicts record"} no ` +
          `token counts: the recorded totals are a lower bound, and those tokens are not charged`,
      );
    }
    const c: JudgeCharge = {
      part: part.file,
      models,
      basis: totals ? "part totals" : "rows",
      items: judged.length,
      items_in_window: 0,
      input_tokens: rowIn + restIn,
      output_tokens: rowOut + restOut,
      unjudged_input_tokens: restIn,
      unjudged_output_tokens: restOut,
      charged_input_tokens: 0,
      charged_output_tokens: 0,
      not_priced: models.filter((m) => price(m).p === null),
    };
    if (!judged.length) {
      // Calls that judged nothing: no request carries them.
      charge(models[0]!, "input", "calls that judged no item (unallocated)", restIn, null);
      charge(models[0]!, "output", "calls that judged no item (unallocated)", restOut, null);
      c.charged_input_tokens = restIn;
      c.charged_output_tokens = restOut;
      warnings.push(`judge part ${part.file}: ${restIn + restOut} tokens judged no item: charged whole, unallocated`);
    }
    const shareIn = judged.length ? restIn / judged.length : 0, shareOut = judged.length ? restOut / judged.length : 0;
    for (const r of judged) {
      const req = quality.index.get(r.request_id);
      if (req === undefined) continue;
      const m = r.source.slice("judge:".length);
      c.items_in_window++;
      charge(m, "input", "calls of its verdicts", r.input_tokens ?? 0, req);
      charge(m, "output", "calls of its verdicts", r.output_tokens ?? 0, req);
      if (restIn || restOut) {
        const rest = "calls on items left unjudged (an equal share per judged item)";
        charge(m, "input", rest, shareIn, req);
        charge(m, "output", rest, shareOut, req);
      }
      c.charged_input_tokens += (r.input_tokens ?? 0) + shareIn;
      c.charged_output_tokens += (r.output_tokens ?? 0) + shareOut;
    }
    out.push(c);
  }
  for (const [model, u] of unpriced) {
    warnings.push(
      `judge ${model}: NOT PRICED: ${Math.round(u.input)} input and ${Math.round(u.output)} output tokens are listed ` +
        `at 0 (${price(model).source.slice(NOT_PRICED_MARK.length + 2)}): the cost per accepted task leaves them out`,
    );
  }
  return out;
}
