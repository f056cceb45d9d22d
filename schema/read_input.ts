/**
 * Every input file a CLI reads, read the same bounded way: a path that is not
 * a regular file (a FIFO, a device, a folder) is refused before it is opened —
 * a FIFO with no writer would hang, `/dev/zero` would grow without end — and a
 * file larger than its cap is refused before it is read whole.
 *
 * @module
 */
import { InputError } from "./errors.ts";

/** The cap of a JSON input (workload, plan, routes, SLO policy, prices, conditions, …): 64 MiB. */
export const MAX_JSON_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * The cap of a row file (a trace, a saved schedule): 1 GiB. A plan schedules at most 10,000,000 requests
 * (docs/plans.md); at about 60 bytes a row that is 600 MB of CSV, so 1 GiB holds any plan that may run.
 */
export const MAX_ROWS_INPUT_BYTES = 1024 * 1024 * 1024;

/** A byte count in MiB as the error states it. */
const mib = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;

/**
 * Checks, before it is opened, that an input file is a regular file of at most `maxBytes` (a FIFO would hang a reader,
 * a device never end), else an {@linkcode InputError} naming the file, what it is and the limit.
 *
 * @example A folder is refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkInputFile } from "./read_input.ts";
 * await assert.rejects(checkInputFile(Deno.makeTempDirSync(), "saved schedule"), /not a regular file \(a folder\)/);
 * ```
 */
export async function checkInputFile(
  file: string,
  what: string,
  maxBytes: number = MAX_JSON_INPUT_BYTES,
): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (e) {
    throw new InputError(`${file}: cannot read ${what}: ${(e as Error).message}`, [], { cause: e });
  }
  if (!info.isFile) {
    const kind = info.isDirectory
      ? "a folder"
      : info.isFifo
      ? "a FIFO"
      : info.isCharDevice || info.isBlockDevice
      ? "a device"
      : info.isSocket
      ? "a socket"
      : "not a regular file";
    throw new InputError(`${file}: cannot read ${what}: not a regular file (${kind}); give a file`);
  }
  if (info.size > maxBytes) {
    throw new InputError(`${file}: ${what} is larger than ${mib(maxBytes)}, the most an input file may hold`);
  }
}

/**
 * Reads an input file's bytes: a regular file of at most `maxBytes`, else an
 * {@linkcode InputError} naming the file, what it is and the limit.
 *
 * @example A folder is refused before it is opened
 * ```ts
 * import assert from "node:assert/strict";
 * import { readInputFile } from "./read_input.ts";
 * const dir = Deno.makeTempDirSync();
 * await assert.rejects(readInputFile(dir, "arrival plan"), /not a regular file/);
 * ```
 */
export async function readInputFile(
  file: string,
  what: string,
  maxBytes: number = MAX_JSON_INPUT_BYTES,
): Promise<Uint8Array> {
  await checkInputFile(file, what, maxBytes);
  const tooLarge = () =>
    new InputError(`${file}: ${what} is larger than ${mib(maxBytes)}, the most an input file may hold`);
  // The size can change (or be misreported) between stat and read: the cap holds while reading too.
  let f: Deno.FsFile;
  try {
    f = await Deno.open(file, { read: true });
  } catch (e) {
    throw new InputError(`${file}: cannot read ${what}: ${(e as Error).message}`, [], { cause: e });
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const buf = new Uint8Array(1 << 20);
    for (;;) {
      const n = await f.read(buf);
      if (n === null) break;
      total += n;
      if (total > maxBytes) throw tooLarge();
      chunks.push(buf.slice(0, n));
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${file}: cannot read ${what}: ${(e as Error).message}`, [], { cause: e });
  } finally {
    f.close();
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** {@linkcode readInputFile} as UTF-8 text (a bad byte becomes U+FFFD, as `Deno.readTextFile` reads it). */
export async function readInputText(file: string, what: string, maxBytes?: number): Promise<string> {
  return new TextDecoder().decode(await readInputFile(file, what, maxBytes));
}
