import assert from "node:assert/strict";
import { join } from "node:path";
import { fileSha256, hasProgram, lines, processAlive, runStreaming } from "../../engine/process.ts";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return ReadableStream.from(chunks.map((c) => enc.encode(c)));
}

Deno.test("lines() splits on \\n, \\r\\n and \\r across chunk boundaries and keeps a last unterminated line", async () => {
  const got: string[] = [];
  // "[ 5%]\r" is how a progress line ends; "é" is split across chunks as UTF-8 bytes would be.
  for await (const l of lines(streamOf(["a\nb", "c\r\n[ 5%]\r", "last é"]))) got.push(l);
  assert.deepEqual(got, ["a", "bc", "[ 5%]", "last é"]);
});

Deno.test("fileSha256() is the sha256 of the file's bytes", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "abc"), "abc");
  // FIPS 180-2's example: sha256("abc").
  assert.equal(await fileSha256(join(dir, "abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("runStreaming() hands every output line to onLine and appends it to the log; resolves to the exit code", async () => {
  const dir = await Deno.makeTempDir();
  const log = join(dir, "log");
  await Deno.writeTextFile(log, "before\n");
  const seen: string[] = [];
  const code = await runStreaming({
    cmd: "sh",
    args: ["-c", "echo one; echo two >&2; exit 4"],
    logFile: log,
    onLine: (l) => seen.push(l),
  });
  assert.equal(code, 4);
  assert.deepEqual(seen.toSorted(), ["one", "two"]);
  assert.deepEqual((await Deno.readTextFile(log)).split("\n").toSorted(), ["", "before", "one", "two"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("hasProgram() and processAlive() tell what is there", async () => {
  assert.equal(await hasProgram("sh-that-does-not-exist-here"), false);
  assert.equal(await hasProgram(Deno.execPath()), true);
  assert.equal(processAlive(Deno.pid), true);
  const child = new Deno.Command("sh", { args: ["-c", "exit 0"] }).spawn();
  await child.status;
  assert.equal(processAlive(child.pid), false);
});
