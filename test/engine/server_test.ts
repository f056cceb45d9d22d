import assert from "node:assert/strict";
import { join } from "node:path";
import { cachePaths } from "../../engine/paths.ts";
import { processAlive } from "../../engine/process.ts";
import { isServer, launch, NICE, readState, serverArgs, stop } from "../../engine/server.ts";

const HEALTH = new URL("./_health_server.ts", import.meta.url).pathname;

/** A free loopback port (listened on once, then closed). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The nice value of a process (field 19 of /proc/PID/stat). */
function niceOf(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

function fakeState(port: number, mode?: string) {
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server: Deno.execPath(),
    args: ["run", "--allow-net=127.0.0.1", HEALTH, String(port), ...(mode ? [mode] : [])],
    nice: NICE,
    model: { name: "m", file: "/m.gguf", sha256: "a".repeat(64), size: "tiny", seed: 1 },
    conditions: "/engine.json",
  };
}

Deno.test("serverArgs() starts llama-server on loopback with the slots, threads and shared KV cache asked for", () => {
  const args = serverArgs("/c/m.gguf", { port: 9000, parallel: 4, ctx: 8192, threads: 2 });
  const after = (flag: string) => args[args.indexOf(flag) + 1];
  assert.equal(after("-m"), "/c/m.gguf");
  assert.equal(after("--host"), "127.0.0.1");
  assert.equal(after("--port"), "9000");
  assert.equal(after("-np"), "4");
  assert.equal(after("-t"), "2");
  assert.equal(after("-c"), "8192");
  assert.equal(after("--poll"), "0");
  for (const flag of ["--kv-unified", "--metrics", "--no-ui", "--jinja"]) assert.ok(args.includes(flag), flag);
});

Deno.test("launch() starts the server detached at a lower priority, records it, and stop() ends it", async () => {
  const cache = await Deno.makeTempDir();
  const paths = cachePaths(cache);
  const port = freePort();
  const lines: string[] = [];
  const state = await launch(paths, fakeState(port), (l) => lines.push(l), 20_000);
  try {
    assert.equal(state.url, `http://127.0.0.1:${port}`);
    assert.ok(isServer(state.pid, Deno.execPath()), "the recorded pid is the server program");
    assert.equal(niceOf(state.pid), NICE, "it runs under nice -n 10");
    assert.deepEqual(await readState(paths, port), state, "state.json holds what launch() returned");
    assert.match(await Deno.readTextFile(state.log), /health server on \d+ \(normal\)/, "its output goes to the log");
    assert.ok(lines.some((l) => l.includes(`pid ${state.pid}`)));
    const res = await fetch(`${state.url}/health`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    assert.equal(await stop(paths, port, () => {}), true);
  }
  assert.equal(processAlive(state.pid), false);
  assert.equal(await readState(paths, port), null, "the state file is gone");
  assert.equal(await stop(paths, port, () => {}), false, "a second stop finds nothing");
  await Deno.remove(cache, { recursive: true });
});

Deno.test("launch() names the log's last lines when the server exits before it is ready", async () => {
  const cache = await Deno.makeTempDir();
  const paths = cachePaths(cache);
  const port = freePort();
  await assert.rejects(
    launch(paths, fakeState(port, "exit"), () => {}, 20_000),
    /exited before it was ready[\s\S]*health server on \d+ \(exit\)/,
  );
  assert.equal(await readState(paths, port), null);
  await Deno.remove(cache, { recursive: true });
});

Deno.test("launch() refuses a port another program listens on", async () => {
  const cache = await Deno.makeTempDir();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  try {
    await assert.rejects(launch(cachePaths(cache), fakeState(port), () => {}), /port \d+ on 127\.0\.0\.1 is in use/);
  } finally {
    listener.close();
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("stop() kills a server that ignores SIGTERM after the grace time", async () => {
  const cache = await Deno.makeTempDir();
  const paths = cachePaths(cache);
  const port = freePort();
  const state = await launch(paths, fakeState(port, "ignore-term"), () => {}, 20_000);
  const lines: string[] = [];
  assert.equal(await stop(paths, port, (l) => lines.push(l), 500), true);
  assert.equal(processAlive(state.pid), false);
  assert.ok(lines.some((l) => l.includes("SIGKILL")), lines.join("\n"));
  await Deno.remove(cache, { recursive: true });
});

Deno.test("stop() signals no process whose pid is not the recorded server any more", async () => {
  const cache = await Deno.makeTempDir();
  const paths = cachePaths(cache);
  const files = paths.server(9);
  await Deno.mkdir(files.dir, { recursive: true });
  // This test's own pid, recorded as a llama-server at another path: a pid reused by another program.
  const stale = {
    ...fakeState(9),
    server: join(cache, "llama-server"),
    pid: Deno.pid,
    log: files.log,
    started_at: "x",
  };
  await Deno.writeTextFile(files.state, JSON.stringify(stale));
  assert.equal(isServer(Deno.pid, stale.server), false);
  assert.equal(await stop(paths, 9, () => {}), false);
  assert.equal(await readState(paths, 9), null, "the stale state is removed");
  await Deno.remove(cache, { recursive: true });
});
