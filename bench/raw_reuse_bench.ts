/**
 * Sequential keep-alive requests through the raw client against the static responder (its own
 * process): CPU (user + system of this process) and wall time per request. It isolates the cost of
 * the reuse check (`RawConnection.probe`), which runs once per reused connection. `--root` imports
 * the runner from another checkout, so an older commit can be measured beside this one.
 *
 * ```sh
 * deno run -A bench/raw_reuse_bench.ts --requests 20000 [--root /path/to/other/checkout]
 * ```
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const { values } = parseArgs({
  options: { root: { type: "string" }, requests: { type: "string", default: "20000" } },
});
const n = Number(values.requests);
if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new RangeError(`--requests must be 1..1000000, got ${n}`);
const root = values.root
  ? pathToFileURL(values.root.replace(/\/+$/, "") + "/").href
  : new URL("../", import.meta.url).href;
const { startClock } = await import(`${root}runner/clock.ts`);
const { RawHttpClient } = await import(`${root}runner/http/raw_client.ts`);
const { startStaticServer } = await import(`${root}bench/static_sse_server.ts`);

const srv = await startStaticServer("deno");
const client = new RawHttpClient({ clock: startClock() });
const req = { url: new URL(srv.url), headers: { "content-type": "application/json" }, body: "{}" };
const ignore = { onHeaders() {}, onData() {} };
try {
  for (let i = 0; i < 2000; i++) await client.send(req, ignore); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await client.send(req, ignore)).ok) ok++;
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  console.log(JSON.stringify({
    root,
    requests: n,
    ok,
    connections: client.connectionsOpened,
    cpu_us_per_request: +((cpu.user + cpu.system) / n).toFixed(2),
    wall_us_per_request: +((wallMs * 1000) / n).toFixed(2),
    loadavg_1m: Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]),
  }));
} finally {
  await client.close();
  await srv.stop();
}
