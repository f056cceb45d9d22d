/**
 * Our own rows for the exporters' round trips: the requests of the sample run `data/runs/explore` (our runner
 * against the simulator: 527 requests, 512 ok, 15 http_error), read from its Parquet with hyparquet, plus a few
 * hand-made rows for the states that run lacks.
 */
import { parquetReadObjects } from "hyparquet";
import { fileURLToPath } from "node:url";
import { RequestRow } from "../../../schema/events.ts";

const RUN = fileURLToPath(new URL("../../../data/runs/explore/", import.meta.url));

/** The explore run's epoch and its request rows (contract 1.0: the 1.1 columns read as null). */
export async function exploreRows(): Promise<{ epoch_iso: string; rows: RequestRow[] }> {
  const manifest = JSON.parse(Deno.readTextFileSync(`${RUN}run.json`)) as { epoch_iso: string };
  const bytes = Deno.readFileSync(`${RUN}requests.parquet`);
  const raw = await parquetReadObjects({
    file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  });
  const rows = raw.map((r) => {
    const o: Record<string, unknown> = {
      streamed: null,
      applicable_gates: null,
      service_mode: null,
      reasoning_tokens: null,
      cache_write_tokens: null,
    };
    for (const [k, v] of Object.entries(r)) o[k] = typeof v === "bigint" ? Number(v) : v;
    return RequestRow.parse(o);
  });
  return { epoch_iso: manifest.epoch_iso, rows };
}

/** A row of the explore run's shape with other times and outcome. */
export function variant(base: RequestRow, over: Partial<RequestRow>): RequestRow {
  return { ...base, ...over };
}
