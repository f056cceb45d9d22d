/**
 * Our own rows for the exporters' round trips: the sample run `data/runs/explore` (our runner against the simulator:
 * 527 offered requests, 512 ok, 15 http_error), read from its Parquet with hyparquet, plus {@linkcode variant} for
 * hand-made rows in the states that run lacks.
 */
import { fileURLToPath } from "node:url";
import { parquetReadObjects } from "hyparquet";
import { AttemptRow, COLUMNS, EPOCH_COLUMNS, RequestRow, type TableName, ToolRow } from "../../../schema/events.ts";

const RUN = fileURLToPath(new URL("../../../data/runs/explore/", import.meta.url));

/**
 * A Parquet row as the contract's zod schema expects it: integers come back as bigint (made numbers), and a column
 * the sample's older contract minor does not have is null (not recorded), but `run_id` (1.3 in attempts) is run.json's,
 * as the analysis reader fills it.
 */
function plain(name: TableName, row: Record<string, unknown>, runId: string): Record<string, unknown> {
  return Object.fromEntries(
    // The epoch column (1.6) is the file's, not the row's: a writer derives it from the row.
    (COLUMNS[name] as readonly string[]).filter((k) => k !== EPOCH_COLUMNS[name].name).map((
      k,
    ) => [k, typeof row[k] === "bigint" ? Number(row[k]) : row[k] ?? (k === "run_id" ? runId : null)]),
  );
}

async function table(name: TableName, runId: string): Promise<Record<string, unknown>[]> {
  const bytes = await Deno.readFile(`${RUN}${name}.parquet`);
  const rows = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
  return rows.map((r) => plain(name, r, runId));
}

/** The explore run's epoch (run.json `epoch_iso`) and its request, attempt and tool rows, as contract rows. */
export async function exploreRows(): Promise<
  { epoch_iso: string; requests: RequestRow[]; attempts: AttemptRow[]; tools: ToolRow[] }
> {
  const manifest = JSON.parse(await Deno.readTextFile(`${RUN}run.json`)) as { epoch_iso: string; run_id: string };
  const requests = (await table("requests", manifest.run_id)).map((r) => RequestRow.parse(r));
  const attempts = (await table("attempts", manifest.run_id)).map((a) => AttemptRow.parse(a));
  const tools = (await table("tools", manifest.run_id)).map((t) => ToolRow.parse(t));
  return { epoch_iso: manifest.epoch_iso, requests, attempts, tools };
}

/** A row of the explore run's shape with other times and outcome. */
export function variant(base: RequestRow, over: Partial<RequestRow>): RequestRow {
  return { ...base, ...over };
}

/** An offered request never sent (`not_sent` unless `over` says `client_shed`): no send, first token or completion. */
export function neverSent(base: RequestRow, over: Partial<RequestRow> = {}): RequestRow {
  return variant(base, {
    request_id: "x-not-sent",
    outcome: "not_sent",
    first_sent_ms: null,
    first_token_ms: null,
    completed_ms: null,
    ...over,
  });
}

/** A burst request still in flight when the run stopped: `aborted`, sent, never completed. */
export function abortedInBurst(requests: readonly RequestRow[]): RequestRow {
  const burst = requests.find((r) => r.stage === "burst")!;
  return variant(burst, { request_id: "x-aborted", outcome: "aborted", completed_ms: null });
}
