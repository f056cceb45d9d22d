import { fileURLToPath } from "node:url";
import { parquetReadObjects } from "hyparquet";
import { AttemptRow, COLUMNS, RequestRow, type TableName } from "../../../schema/events.ts";

const RUN = fileURLToPath(new URL("../../../data/runs/explore/", import.meta.url));

/**
 * A Parquet row as the contract's zod schema expects it: integers come back as bigint (made numbers), and a column
 * the sample's older contract minor does not have is null (not recorded).
 */
function plain(name: TableName, row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    (COLUMNS[name] as readonly string[]).map((k) => [k, typeof row[k] === "bigint" ? Number(row[k]) : row[k] ?? null]),
  );
}

async function table(name: TableName): Promise<Record<string, unknown>[]> {
  const bytes = await Deno.readFile(`${RUN}${name}.parquet`);
  const rows = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
  return rows.map((r) => plain(name, r));
}

/** The sample run `data/runs/explore` (527 offered rows: 512 ok, 15 http_error), as contract rows. */
export async function exploreRows(): Promise<{ requests: RequestRow[]; attempts: AttemptRow[] }> {
  const requests = (await table("requests")).map((r) => RequestRow.parse(r));
  const attempts = (await table("attempts")).map((a) => AttemptRow.parse(a));
  return { requests, attempts };
}
