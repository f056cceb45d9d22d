/**
 * The engine build for the tests that need it (the model generator's packages, llama-server). Cached: used as it
 * is. Missing in CI (CI=true): built now, minutes — and when it cannot be built, the error fails the test. Missing
 * elsewhere: null after a loud warning, and those tests are skipped (building takes minutes: `npx deno task engine`
 * builds it once for every later run).
 */
import { type Build, buildKey, cachedBuild, ensureBuild } from "../../engine/build.ts";
import { cachePaths, engineCacheDir } from "../../engine/paths.ts";

export async function engineBuildForTests(): Promise<Build | null> {
  const paths = cachePaths(engineCacheDir());
  const cached = await cachedBuild(paths, await buildKey());
  if (cached) return cached;
  if (Deno.env.get("CI") === "true") return await ensureBuild(paths, (line) => console.error(line));
  console.warn(
    `\n!!! SKIPPED: no engine build in ${paths.cache} (\`npx deno task engine\` builds it once: minutes); in CI ` +
      "this is a failure !!!\n",
  );
  return null;
}
