import assert from "node:assert/strict";
import { cachePaths, engineCacheDir } from "../../engine/paths.ts";

Deno.test("engineCacheDir() takes GOODPUT_ENGINE_CACHE, then XDG_CACHE_HOME, then ~/.cache: a folder outside the clone", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.equal(engineCacheDir(env({ GOODPUT_ENGINE_CACHE: "/c", XDG_CACHE_HOME: "/x", HOME: "/h" })), "/c");
  assert.equal(engineCacheDir(env({ XDG_CACHE_HOME: "/x", HOME: "/h" })), "/x/goodput-engine");
  assert.equal(engineCacheDir(env({ HOME: "/h" })), "/h/.cache/goodput-engine");
  assert.throws(() => engineCacheDir(env({})), /no place for the engine/);
});

Deno.test("cachePaths() keeps one server's files in servers/<port>/", () => {
  const p = cachePaths("/c");
  assert.equal(p.python, "/c/venv/bin/python");
  assert.equal(p.stamp, "/c/venv/goodput-build.json");
  assert.deepEqual(p.server(8788), {
    dir: "/c/servers/8788",
    state: "/c/servers/8788/state.json",
    log: "/c/servers/8788/server.log",
    conditions: "/c/servers/8788/engine.json",
  });
  assert.equal(p.pipCache("abc"), "/c/pip/abc");
});
