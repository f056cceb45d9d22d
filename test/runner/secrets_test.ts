import assert from "node:assert/strict";
import { join } from "node:path";
import { runLoadTest } from "../../runner/run.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../testing/tiny_workload.ts";

Deno.test("the API key is sent to the target but appears in no output file", async () => {
  const dir = Deno.makeTempDirSync();
  const key = "sk-test-SECRET-4b1d9f0c7e";
  const srv = await startFaultServer({ tokens: 3 });
  Deno.env.set("GOODPUT_TEST_KEY", key);
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, 20, 0.5),
      target: `${srv.url}/ok-sse`,
      out: join(dir, "out"),
      formats: ["csv", "parquet"],
      apiKeyEnv: "GOODPUT_TEST_KEY",
      saveOutputs: true,
      progress: false,
      serverTimeline: false,
    });
    assert.equal(srv.requests.length, 10);
    for (const r of srv.requests) assert.equal(r.headers.get("authorization"), `Bearer ${key}`);
    assert.equal(manifest.targets[0]!.api_key_env, "GOODPUT_TEST_KEY");
    assert.equal(manifest.targets[0]!.api_key_present, true);
    const files = [...Deno.readDirSync(runDir)].map((e) => e.name);
    assert.ok(files.includes("outputs.jsonl") && files.includes("requests.parquet"));
    const needle = new TextEncoder().encode(key);
    for (const f of files) {
      const bytes = Deno.readFileSync(join(runDir, f));
      assert.equal(indexOf(bytes, needle), -1, `${f} contains the API key`);
    }
  } finally {
    Deno.env.delete("GOODPUT_TEST_KEY");
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
