/**
 * Room kept on the run's disk for finishing its log: a hidden file of {@link RESERVE_BYTES} written when the log
 * files are opened and removed before run.json is written at the end. When a log write fails because the disk is
 * full, removing it frees the room that the final run.json needs, so a run stopped by a full disk still ends with
 * its status and why (runner/execute.ts, runner/finalise.ts). A run killed with `kill -9` leaves it behind; no
 * reader looks at it.
 *
 * @module
 */
import { join } from "node:path";
import { LogWriteError } from "./sinks/log_write_error.ts";

/** The reserve file's name in the run folder. */
export const RESERVE_FILE = ".goodput-reserve";
/** Its size: 1 MiB, some 50 times a run.json's. */
export const RESERVE_BYTES = 1 << 20;

/**
 * Writes the reserve file in `dir` (real blocks: zeros written, not a sparse length). A disk without that much room
 * throws a `LogWriteError` naming the file, with what was written of it removed.
 */
export function reserveRoom(dir: string): void {
  const path = join(dir, RESERVE_FILE);
  try {
    using f = Deno.openSync(path, { write: true, create: true, truncate: true });
    const block = new Uint8Array(64 * 1024);
    for (let n = 0; n < RESERVE_BYTES;) n += f.writeSync(block.subarray(0, Math.min(block.length, RESERVE_BYTES - n)));
  } catch (e) {
    releaseRoom(dir);
    throw new LogWriteError(path, e);
  }
}

/** Removes the reserve file (nothing when it is not there). */
export function releaseRoom(dir: string): void {
  try {
    Deno.removeSync(join(dir, RESERVE_FILE));
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}
