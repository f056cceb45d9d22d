import type { OverheadSheet } from "../../schema/prices.ts";

/** The source of every overhead line when no overheads sheet was given: listed at price 0. */
export const NO_OVERHEADS = "not priced: no overheads sheet given (--overheads)";

/**
 * The words that open the source of a line whose usage is recorded but whose price is unknown (a judge model with no
 * price): its amount is 0 in the ledger's sums, and the text ledger prints NOT PRICED instead of a price.
 */
export const NOT_PRICED_MARK = "NOT PRICED";

/** "sheet: source (as of date)" of an overhead line: the section's own source when it has one, else the sheet's. */
export function overheadSource(sheet: OverheadSheet | null, section?: string, asOf?: string): string {
  return sheet ? `${sheet.name}: ${section ?? sheet.source} (as of ${asOf ?? sheet.as_of})` : NO_OVERHEADS;
}
