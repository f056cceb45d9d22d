import assert from "node:assert/strict";
import { join } from "node:path";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../support/tiny_workload.ts";
import { runCli } from "../support/run_cli.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

const cli = (script: string, args: string[]) => runCli(join(ROOT, script), args);

function assertNamed(r: { code: number; stderr: string }, ...parts: (string | RegExp)[]) {
  assert.equal(r.code, 2, `exit code 2, stderr: ${r.stderr}`);
  for (const p of parts) {
    if (typeof p === "string") assert.ok(r.stderr.includes(p), `stderr names ${p}: ${r.stderr}`);
    else assert.match(r.stderr, p);
  }
  assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
}

Deno.test("malformed input files are refused with exit code 2, naming the file and the field", async (t) => {
  const dir = Deno.makeTempDirSync();
  const workload = writeWorkload(dir, [tinyCase()]);
  const plan = constantPlan(dir, 5, 1);
  const base = ["--target", "http://127.0.0.1:9", "--out", join(dir, "out"), "--no-progress"];
  try {
    await t.step("workload with a wrong type", async () => {
      const bad = join(dir, "badw");
      const w = writeWorkload(bad, [tinyCase()]);
      const json = JSON.parse(Deno.readTextFileSync(join(w, "workload.json")));
      json.cases[0].max_output_tokens = "many";
      Deno.writeTextFileSync(join(w, "workload.json"), JSON.stringify(json));
      assertNamed(
        await cli("runner/cli/run.ts", ["--workload", w, "--plan", plan, ...base]),
        "workload.json",
        "cases.0.max_output_tokens",
      );
    });
    await t.step("plan with a negative rate", async () => {
      const p = writeJson(dir, "neg.json", {
        name: "neg",
        arrivals: { process: "constant", rate_rps: -1, duration_s: 1 },
      });
      assertNamed(
        await cli("runner/cli/run.ts", ["--workload", workload, "--plan", p, ...base]),
        "neg.json",
        "arrivals.rate_rps",
      );
    });
    await t.step("conditions without a model", async () => {
      const c = writeJson(dir, "cond.json", { provider: "x" });
      assertNamed(
        await cli("runner/cli/run.ts", ["--workload", workload, "--plan", plan, "--conditions", c, ...base]),
        "cond.json",
        "model",
      );
    });
    await t.step("a retry policy that retries 401", async () => {
      const r = writeJson(dir, "retry.json", { retry_statuses: [401] });
      assertNamed(
        await cli("runner/cli/run.ts", ["--workload", workload, "--plan", plan, "--retry", r, ...base]),
        "retry.json",
        "retry_statuses",
      );
    });
    await t.step("a simulator profile with a typo", async () => {
      const p = writeJson(dir, "profile.json", { name: "x", replicass: 2 });
      assertNamed(await cli("sim/cli.ts", ["--port", "0", "--profile", p]), "profile.json", "replicass");
    });
    await t.step("an unknown flag and a bad shard", async () => {
      assertNamed(await cli("runner/cli/run.ts", ["--bogus"]), "bogus");
      assertNamed(
        await cli("runner/cli/run.ts", ["--workload", workload, "--plan", plan, "--shard", "3/2", ...base]),
        "--shard",
      );
    });
    await t.step("a missing file", async () => {
      assertNamed(
        await cli("runner/cli/run.ts", ["--workload", workload, "--plan", join(dir, "nope.json"), ...base]),
        "nope.json",
      );
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
