import assert from "node:assert/strict";
import { join } from "node:path";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";
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

Deno.test("run ids and plan names that could leave --out are refused before anything is written", async (t) => {
  const dir = Deno.makeTempDirSync();
  const out = join(dir, "nested", "out");
  const workload = writeWorkload(dir, [tinyCase()]);
  const plan = constantPlan(dir, 5, 1);
  const base = ["--workload", workload, "--target", "http://127.0.0.1:9", "--out", out, "--no-progress"];
  const nothingWritten = () => {
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["nested", "tiny.json", "workload"].sort());
    assert.deepEqual([...Deno.readDirSync(join(dir, "nested"))], [], "not even --out is made");
  };
  Deno.mkdirSync(join(dir, "nested"));
  try {
    for (const id of ["../../x", "a/b", "a\\b", "a\nb", "tab\there", "..", ".hidden", "", "x".repeat(129)]) {
      await t.step(`--run-id ${JSON.stringify(id)}`, async () => {
        assertNamed(await cli("runner/cli/run.ts", [...base, "--plan", plan, "--run-id", id]), "--run-id");
        nothingWritten();
      });
    }
    await t.step("a plan named ../../x", async () => {
      const p = writeJson(dir, "climb.json", {
        name: "../../x",
        arrivals: { process: "constant", rate_rps: 5, duration_s: 1 },
      });
      assertNamed(await cli("runner/cli/run.ts", [...base, "--plan", p]), "climb.json", /\bname\b/);
      Deno.removeSync(p);
      nothingWritten();
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("every bad numeric flag is refused at the flag check, all named in one message", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const workload = writeWorkload(dir, [tinyCase()]);
    const out = join(dir, "out");
    const r = await cli("runner/cli/run.ts", [
      ...["--workload", workload, "--plan", constantPlan(dir, 5, 1), "--target", "http://127.0.0.1:9"],
      ...["--out", out, "--no-progress", "--max-send-lag-ms", "0", "--max-in-flight", "2.5"],
      ...["--lag-limit-ms=-1", "--seed", "1.5", "--shard", "2/2", "--run-id", "../x", "--format", "xml"],
    ]);
    assertNamed(
      r,
      '--max-send-lag-ms: expected a number > 0, got "0"',
      '--max-in-flight: expected an integer ≥ 1, got "2.5"',
      '--lag-limit-ms: expected a number ≥ 0, got "-1"',
      '--seed: expected an integer ≥ 0, got "1.5"',
      "--shard",
      "--run-id",
      "--format",
    );
    assert.throws(() => Deno.statSync(out), Deno.errors.NotFound, "nothing written");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
