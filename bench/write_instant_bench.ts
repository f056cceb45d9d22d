/**
 * When does Deno put a `conn.write()`'s bytes on the socket? The raw client takes a request's first-byte instant as
 * its first `write` call returns (runner/http/raw_client.ts); that is right only if the write happens inside the
 * call, not on a later turn of the event loop. Here a client writes 1,000 bytes to a server in another process,
 * then blocks its thread for 20 ms before awaiting the write: if the server reads the bytes during those 20 ms, the
 * write was done by the call itself. Times are absolute (`performance.timeOrigin + performance.now()`) in both
 * processes, relative to just before the call.
 *
 *   deno run -A bench/write_instant_bench.ts [--n 10]
 *
 * @module
 */
import { parseArgs } from "node:util";

const { values: v } = parseArgs({
  args: Deno.args,
  options: { n: { type: "string", default: "10" }, serve: { type: "boolean", default: false } },
});
const abs = () => performance.timeOrigin + performance.now();

if (v.serve) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  console.log(JSON.stringify({ port: listener.addr.port }));
  for await (const conn of listener) {
    const buf = new Uint8Array(65536);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      console.log(JSON.stringify({ t: abs(), n }));
    }
    break;
  }
  Deno.exit(0);
}

const n = Number(v.n);
if (!(n >= 1 && n <= 1000)) {
  console.error("write_instant_bench: --n in [1, 1000]");
  Deno.exit(2);
}
const server = new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-net=127.0.0.1", new URL(import.meta.url).pathname, "--serve"],
  stdout: "piped",
}).spawn();
const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
let pending = "";
const nextLine = async (): Promise<{ t: number; n: number; port: number }> => {
  while (!pending.includes("\n")) {
    const r = await lines.read();
    if (r.done) throw new Error("server ended");
    pending += r.value;
  }
  const i = pending.indexOf("\n");
  const line = pending.slice(0, i);
  pending = pending.slice(i + 1);
  return JSON.parse(line);
};
const { port } = await nextLine();
const conn = await Deno.connect({ hostname: "127.0.0.1", port });
conn.setNoDelay(true);
console.log(`loadavg ${Deno.readTextFileSync("/proc/loadavg").trim()}`);
console.log("| write | call returned (ms) | server read the bytes (ms) | promise seen settled (ms) |");
console.log("| ---: | ---: | ---: | ---: |");
for (let k = 1; k <= n; k++) {
  const bytes = new Uint8Array(1000).fill(65);
  const t0 = abs();
  const written = conn.write(bytes);
  const returned = abs();
  for (const s = performance.now(); performance.now() - s < 20;); // no event-loop turn for 20 ms
  await written;
  const settled = abs();
  const got = await nextLine();
  console.log(
    `| ${k} | +${(returned - t0).toFixed(3)} | +${(got.t - t0).toFixed(3)} | +${(settled - t0).toFixed(3)} |`,
  );
  await new Promise((r) => setTimeout(r, 20));
}
conn.close();
await server.status;
