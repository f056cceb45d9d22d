/**
 * The folders and manifests of a run, read without any engine: which folders
 * hold it (the folder itself, or its `shard-i-of-N/` folders), each run.json
 * read and checked, an imported run's one-shard set, and files hashed in a
 * stream. Shared by the polars path (`_open_run.ts`) and the SQL path
 * (analysis/sql/).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { readInputText } from "../../schema/read_input.ts";
import { type AnyManifest, parseAnyManifest } from "../../schema/imported_manifest.ts";
import { assertSchemaMinor, assertSchemaVersion } from "../../schema/version.ts";
import { SHARD_DIR, type ShardSet } from "./_shard_set.ts";

/** Read size of the hash stream: 8 MB reads hash ~3× faster than the 64 KB chunks of `readable`. */
const HASH_CHUNK = 8 << 20;

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** sha256 of a file, streamed through one reused buffer: memory stays at one chunk whatever the file's size. */
export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  using f = await Deno.open(path, { read: true });
  const buf = new Uint8Array(HASH_CHUNK);
  for (;;) {
    const n = await f.read(buf);
    if (n === null) break;
    h.update(buf.subarray(0, n));
  }
  return h.digest("hex");
}

/** The run folders to read: the folder itself, or its `shard-i-of-N/` folders in index order. */
export async function runDirs(path: string): Promise<string[]> {
  if (await exists(join(path, "run.json"))) return [path];
  const shards: { i: number; dir: string }[] = [];
  try {
    for await (const e of Deno.readDir(path)) {
      const m = SHARD_DIR.exec(e.name);
      if (e.isDirectory && m) shards.push({ i: Number(m[1]), dir: join(path, e.name) });
    }
  } catch (e) {
    throw new InputError(`${path}: cannot read run folder: ${(e as Error).message}`, [], { cause: e });
  }
  if (!shards.length) throw new InputError(`${path}: not a run folder (no run.json and no shard-i-of-N/ folders)`);
  return shards.sort((a, b) => a.i - b.i).map((s) => s.dir);
}

/** Reads run.json of any kind: the runner's strict manifest, an imported run's or a production recording's. */
export async function readManifest(dir: string): Promise<AnyManifest> {
  const file = join(dir, "run.json");
  // A regular file of at most 64 MiB (schema/read_input.ts): a FIFO or a device is refused before it is opened.
  const text = await readInputText(file, "run manifest");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: cannot read run manifest: ${(e as Error).message}`, [], { cause: e });
  }
  assertSchemaVersion((raw as { schema_version?: unknown } | null)?.schema_version, file);
  const manifest = parseAnyManifest(raw, file);
  assertSchemaMinor(manifest.schema_minor, file);
  return manifest;
}

/** An imported run or a production recording is one folder: its one-shard set, else an InputError. */
export function oneFolder(path: string, dirs: string[], whose: string, why: string): ShardSet {
  if (dirs.length !== 1 || dirs[0] !== path) {
    throw new InputError(`${path}: shard folders holding ${whose} run.json: ${why}`);
  }
  return { count: 1, present: [0], missing: [] };
}

/** An imported run is one folder (the importer writes no shards): its one-shard set, else an InputError. */
export function importedShardSet(path: string, dirs: string[]): ShardSet {
  return oneFolder(path, dirs, "an imported run's", "an imported run is one folder, never sharded");
}

/** The warnings of opening a run: each one kept in `warnings` and passed to `onWarning` (default: console.warn). */
export function warningCollector(onWarning?: (message: string) => void) {
  const warn = onWarning ?? ((m: string) => console.warn(`warning: ${m}`));
  const warnings: string[] = [];
  const warning = (m: string) => {
    warnings.push(m);
    warn(m);
  };
  return { warnings, warning };
}
