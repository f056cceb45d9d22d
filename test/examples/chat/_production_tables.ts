/**
 * The tables of a production run folder, read as they are on disk (every part, Parquet or CSV), without the analysis:
 * the example's test checks what the recorder wrote, not what the analysis makes of it.
 */
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { parquetReadObjects } from "hyparquet";
import { ProductionManifest } from "../../../schema/production_manifest.ts";

export type Row = Record<string, unknown>;

/** run.json and every row of each table, over all parts in order. */
export interface ProductionTables {
  manifest: ProductionManifest;
  requests: Row[];
  attempts: Row[];
  tools: Row[];
  phases: Row[];
}

async function readTable(dir: string, format: "csv" | "parquet", table: string): Promise<Row[]> {
  const file = join(dir, `${table}.${format}`);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  if (format === "parquet") {
    const rows = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
    // int64 columns come back as bigint: plain numbers are enough for ms and counts.
    return rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]))
    );
  }
  return parse(new TextDecoder().decode(bytes), {
    columns: true,
    cast: (v) => v === "" ? null : isNaN(Number(v)) ? v : Number(v),
  });
}

/** Reads a production run folder. */
export async function readProduction(dir: string): Promise<ProductionTables> {
  const manifest = ProductionManifest.parse(JSON.parse(await Deno.readTextFile(join(dir, "run.json"))));
  const out: ProductionTables = { manifest, requests: [], attempts: [], tools: [], phases: [] };
  for (const part of manifest.parts) {
    for (const table of ["requests", "attempts", "tools", "phases"] as const) {
      out[table].push(...await readTable(join(dir, part.dir), part.format, table));
    }
  }
  return out;
}
