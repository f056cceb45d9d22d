import assert from "node:assert/strict";
import { join } from "node:path";
import { runLoadTest } from "../../runner/run.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

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

const RUN = new URL("../../runner/cli/run.ts", import.meta.url).pathname;

/** Runs `npx deno task run` (the CLI, directly) with `args`; its exit code, stdout and stderr. */
async function runCli(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", RUN, "--no-progress", "--no-server-timeline", ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Every file under `dir`, its bytes as text. */
function filesUnder(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) { for (const [k, v] of filesUnder(p)) found.set(k, v); }
    else found.set(p, new TextDecoder().decode(Deno.readFileSync(p)));
  }
  return found;
}

Deno.test("secrets in the target URL (query values, fragment) reach no file, no output line and no error", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 3 });
  const secrets = ["QKEY-7f3a9c", "SIG-b41d0e", "FRAG-sk-93ac1f"];
  try {
    const workload = writeWorkload(dir, [tinyCase()]);
    const plan = constantPlan(dir, 10, 0.5);
    const query = `?api_key=${secrets[0]}&sig=${secrets[1]}#${secrets[2]}`;
    // A served run (pre-flight on), then a dead target: the pre-flight's error names the URL fetch failed on.
    const served = await runCli([
      ...["--workload", workload, "--plan", plan, "--out", join(dir, "out")],
      ...["--target", `${srv.url}/ok-sse/v1${query}`],
    ]);
    assert.equal(served.code, 0, served.stderr);
    assert.ok(srv.requests.length >= 5);
    // The fragment is never sent (HTTP sends none); the query is, as the provider needs it.
    for (const r of srv.requests) assert.ok(!r.target.includes(secrets[2]!), r.target);
    const dead = await runCli([
      ...["--workload", workload, "--plan", plan, "--out", join(dir, "out-dead")],
      ...["--target", `http://127.0.0.1:1/v1${query}`],
    ]);
    assert.equal(dead.code, 4, dead.stderr);
    const files = filesUnder(join(dir, "out"));
    const manifest = [...files].find(([p]) => p.endsWith("run.json"))![1];
    assert.match(
      manifest,
      /"url": "http:\/\/127\.0\.0\.1:\d+\/ok-sse\/v1\/chat\/completions\?api_key=REDACTED&sig=REDACTED"/,
    );
    const texts = [...files, ["served stdout", served.stdout], ["served stderr", served.stderr], [
      "dead stderr",
      dead.stderr,
    ]];
    for (const [where, text] of texts) for (const s of secrets) assert.ok(!text!.includes(s), `${where} holds ${s}`);
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("--api-key-env given the key itself is refused before any work, exit 2, the key never echoed", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 3 });
  try {
    const workload = writeWorkload(dir, [tinyCase()]);
    const plan = constantPlan(dir, 10, 0.5);
    const common = ["--workload", workload, "--plan", plan, "--out", join(dir, "out"), "--target", `${srv.url}/ok-sse`];
    const keys = [
      ["sk-proj-4f9a0c7e1b2d3e4f5a6b", /is not an environment variable name/],
      // Letters and digits only (a Google-style key): a valid name in form, but no such variable and not a name.
      ["AIzaSyD4x9f0Qm2LkP7vR8tW1nB5", /looks like a key/],
    ] as const;
    for (const [key, why] of keys) {
      const r = await runCli([...common, "--api-key-env", key]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--api-key-env: the value given \(\d+ characters, not shown\)/);
      assert.match(r.stderr, why);
      assert.ok(!r.stderr.includes(key) && !r.stdout.includes(key), "the key is not echoed");
    }
    // A routes file's api_key_env: the same rule, the file and field named.
    const routes = writeJson(dir, "routes.json", {
      name: "r",
      policy: { kind: "single", route: "a" },
      routes: { a: { url: `${srv.url}/ok-sse`, provider: "p", model: "m", api_key_env: keys[0][0] } },
    });
    const r = await runCli(["--workload", workload, "--plan", plan, "--out", join(dir, "out"), "--routes", routes]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /routes\.json: routes\.a\.api_key_env: the value given/);
    assert.ok(!r.stderr.includes(keys[0][0]));
    // Before any work: the target was never contacted and no folder was made.
    assert.equal(srv.requests.length, 0);
    assert.ok(!filesUnder(dir).keys().some((p) => p.includes(`${join(dir, "out")}/`)));
    // A name, set or not, still runs: the variable's name is what run.json records.
    const ok = await runCli([...common, "--api-key-env", "MY_KEY_2"], { MY_KEY_2: "sk-x" });
    assert.equal(ok.code, 0, ok.stderr);
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
