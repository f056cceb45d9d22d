/**
 * The responder's CPU as the reference bench reads it (bench/static_sse_server.ts `processCpuMs`): a child that spins
 * for a known stretch shows that much CPU, to /proc's 10 ms resolution; a process that is gone reads as null.
 */
import assert from "node:assert/strict";
import { processCpuMs } from "../../bench/static_sse_server.ts";

const linux = Deno.build.os === "linux";

Deno.test({
  name: "processCpuMs: a child spinning ~400 ms of CPU reads as 300–1,500 ms; after it exits, null",
  ignore: !linux,
  fn: async () => {
    // Spins until its own CPU time (process.cpuUsage, not the wall clock: a loaded machine may lend it less than the
    // wall clock's 400 ms) has advanced 400 ms, then waits for stdin to close.
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import process from "node:process"; const c0 = process.cpuUsage(); let x = 0;
         for (;;) { x++; if ((x & 0xffff) === 0) { const c = process.cpuUsage(c0); if (c.user + c.system >= 400e3) break; } }
         console.log("spun"); for await (const _ of Deno.stdin.readable) break;`,
      ],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const before = processCpuMs(child.pid);
    assert.notEqual(before, null);
    const reader = child.stdout.getReader();
    const first = await reader.read(); // the spin is over
    assert.match(new TextDecoder().decode(first.value), /spun/);
    const after = processCpuMs(child.pid)!;
    assert.ok(after - before! >= 300 && after <= 1500, `${before} → ${after} ms`);
    reader.releaseLock();
    await child.stdin.close();
    await child.stdout.cancel();
    await child.status;
    assert.equal(processCpuMs(child.pid), null);
  },
});
