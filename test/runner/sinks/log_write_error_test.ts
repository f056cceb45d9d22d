import assert from "node:assert/strict";
import { appendWhole, LogWriteError } from "../../../runner/sinks/log_write_error.ts";

/** A file on a disk with `room` bytes left: a write takes what fits, then fails with ENOSPC (as Linux does). */
function fullDiskFile(room: number) {
  let bytes = new Uint8Array(0);
  let pos = 0;
  const file = {
    seekSync(offset: number, whence: Deno.SeekMode) {
      pos = whence === Deno.SeekMode.Current ? pos + offset : offset;
      return pos;
    },
    writeSync(data: Uint8Array) {
      const n = Math.min(data.length, room - bytes.length);
      if (n === 0) throw Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
      const next = new Uint8Array(pos + n);
      next.set(bytes.subarray(0, pos));
      next.set(data.subarray(0, n), pos);
      bytes = next;
      pos += n;
      return n;
    },
    truncateSync(len: number) {
      bytes = bytes.slice(0, len);
    },
  };
  return { file: file as unknown as Deno.FsFile, text: () => new TextDecoder().decode(bytes) };
}

Deno.test("a write the disk cannot take whole is cut back to the last whole line and named", () => {
  // 20 bytes of room: "a,1\n" (4) fits; "b,2\nc,3\n…" (40) is written 16 bytes in, then ENOSPC.
  const disk = fullDiskFile(20);
  appendWhole(disk.file, "/run/requests.csv", new TextEncoder().encode("a,1\n"));
  let caught: unknown;
  try {
    appendWhole(disk.file, "/run/requests.csv", new TextEncoder().encode("b,2\nc,3\n".repeat(5)));
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof LogWriteError);
  assert.equal(caught.path, "/run/requests.csv");
  assert.equal(caught.code, "ENOSPC");
  assert.equal(caught.message, "/run/requests.csv: No space left on device (os error 28)");
  // Without the cut-back the file would hold "a,1\nb,2\nc,3\nb,2\n" and the next write would land after it.
  assert.equal(disk.text(), "a,1\n");
  assert.equal(disk.file.seekSync(0, Deno.SeekMode.Current), 4);
});

Deno.test("an error without a code is still a LogWriteError (code null)", () => {
  const file = {
    seekSync: () => 0,
    writeSync: () => {
      throw new Error("Input/output error");
    },
    truncateSync: () => {},
  } as unknown as Deno.FsFile;
  assert.throws(
    () => appendWhole(file, "tools.csv", new Uint8Array([10])),
    (e) => e instanceof LogWriteError && e.code === null && e.message === "tools.csv: Input/output error",
  );
});
