/**
 * A log file that could not be written (a full disk, a quota, a file too large, an I/O error): raised by the sinks
 * after they cut the file back to its last whole line, so what is on disk always reads.
 *
 * @module
 */

/** A failed write to a run's log file. */
export class LogWriteError extends Error {
  /** The file that could not be written. */
  readonly path: string;
  /** The system error code (`ENOSPC`, `EDQUOT`, `EFBIG`, `EIO`, …), or null when the error gave none. */
  readonly code: string | null;

  constructor(path: string, cause: unknown) {
    const code = (cause as { code?: unknown })?.code;
    super(`${path}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = "LogWriteError";
    this.path = path;
    this.code = typeof code === "string" ? code : null;
  }
}

/**
 * Writes `data` at the file's current position, whole or not at all: when a write fails part-way (a full disk
 * takes the bytes that fit), the file is cut back to where it was, so it never ends in half a line, and a
 * {@linkcode LogWriteError} is thrown.
 */
export function appendWhole(file: Deno.FsFile, path: string, data: Uint8Array): void {
  const at = file.seekSync(0, Deno.SeekMode.Current);
  let off = 0;
  try {
    while (off < data.length) off += file.writeSync(data.subarray(off));
  } catch (e) {
    try {
      file.truncateSync(at);
      file.seekSync(at, Deno.SeekMode.Start);
    } catch {
      // Cutting back failed too: the readers drop a cut last line of a log that ends early (with a warning).
    }
    throw new LogWriteError(path, e);
  }
}
