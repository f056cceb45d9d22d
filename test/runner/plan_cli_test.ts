import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Workload } from "../../schema/workload.ts";
import { buildSchedule, loadPlan, scheduleSha256, summarizeSchedule } from "../../runner/schedule.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";
import { runCli as runCliAt } from "../support/run_cli.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "runner/cli/plan.ts");
const DEMO = join(ROOT, "data/plans/demo-staged.json");

/** A two-class workload folder that `loadWorkload` accepts. */
async function writeWorkload(dir: string): Promise<Workload> {
  const cases = ["chat", "chat", "rag"].map((cls, i) =>
    tinyCase({
      case_id: `${cls}-${i}`,
      class: cls,
      priority: 0,
      messages: [{ role: "user", content: `question ${i}` }],
      input_tokens: 2,
      max_output_tokens: 8,
      expected_output_tokens: 4,
      reference_output: "ok",
      quality_check: { kind: "exact", value: "ok", normalize: true },
    })
  );
  const workload: Workload = {
    workload: "cli-fixture",
    version: "1",
    kind: "design",
    description: "plan CLI test",
    does_not_represent: [],
    tokenizer: "o200k_base",
    cases,
  };
  const cls = { description: "", deadline_ms: 5000, ttft_ms: 1000, tpot_ms: 50, stream: true, priority: 0 };
  await Deno.writeTextFile(join(dir, "workload.json"), JSON.stringify(workload));
  await Deno.writeTextFile(
    join(dir, "class_defaults.json"),
    JSON.stringify({ workload: "cli-fixture", classes: { chat: cls, rag: cls } }),
  );
  return workload;
}

const runCli = (args: string[]) => runCliAt(CLI, args, ["--allow-read"], { cwd: ROOT });

Deno.test("the plan CLI prints the schedule and exits 2 on bad input", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "plan_cli_test_" });
  try {
    const workload = await writeWorkload(dir);
    const plan = await loadPlan(DEMO);
    const built = await buildSchedule(plan.spec, workload, { planDir: plan.planDir });
    const summary = summarizeSchedule(built);

    await t.step("per-stage counts, per-class counts, total and sha256 match the library", async () => {
      const r = await runCli(["--plan", DEMO, "--workload", dir]);
      assert.equal(r.code, 0, r.stderr);
      for (const s of summary.stages) {
        const row = r.stdout.split("\n").find((l) => l.startsWith(`${s.name} `));
        assert.ok(row, `no row for ${s.name}`);
        const cols = row.trim().split(/\s+/);
        assert.equal(cols[1], s.kind);
        assert.equal(Number(cols[5]), s.requests, row);
        assert.equal(cols[4], s.planned_rps.toFixed(2));
      }
      for (const [cls, n] of Object.entries(summary.classes)) {
        assert.match(r.stdout, new RegExp(`^${cls}\\s+${n}$`, "m"));
      }
      assert.match(r.stdout, new RegExp(`total planned: ${built.totalPlanned} `));
      assert.match(r.stdout, new RegExp(`schedule sha256: ${await scheduleSha256(built.entries)}`));
    });

    await t.step("--shard 1/2 keeps every other arrival; --json gives the summary", async () => {
      const r = await runCli(["--plan", DEMO, "--workload", dir, "--shard", "1/2", "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.total_planned, built.totalPlanned);
      assert.equal(out.requests, Math.floor(built.totalPlanned / 2));
      assert.deepEqual(out.shard, { index: 1, count: 2 });
      assert.match(out.sha256, /^[0-9a-f]{64}$/);
    });

    await t.step("a closed plan says it has no precomputed schedule", async () => {
      const r = await runCli(["--plan", join(ROOT, "data/plans/closed-8users.json"), "--workload", dir]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /closed loop: arrivals are made by the users/);
    });

    await t.step("a sweep plan says its steps and stop rule, then lists step and drain stages", async () => {
      const r = await runCli(["--plan", join(ROOT, "data/plans/sweep-linear.json"), "--workload", dir]);
      assert.equal(r.code, 0, r.stderr);
      // 2, 4, …, 16 req/s: 8 steps.
      assert.match(
        r.stdout,
        /^sweep: 8 steps of 20 s \(poisson\), 2 → 16 req\/s \(\+2 req\/s\), 5 s drain after each; /m,
      );
      assert.match(r.stdout, /acceptance < 0\.5 or rejection > 0\.2 at the end of its drain/);
      assert.match(r.stdout, /^step-01 +warmup +0\.0 +20\.0 +2\.00 /m);
      assert.match(r.stdout, /^drain-after-step-08 +drain +195\.0 +200\.0 +0\.00 +0 /m);
    });

    const bad = join(dir, "bad-plan.json");
    await Deno.writeTextFile(
      bad,
      JSON.stringify({ name: "b", arrivals: { process: "poisson", rate_rps: -1, duration_s: 10 } }),
    );
    const cases: [string, string[], RegExp][] = [
      ["a bad plan", ["--plan", bad, "--workload", dir], /bad-plan\.json: arrivals\.rate_rps/],
      ["a missing plan", ["--plan", join(dir, "none.json"), "--workload", dir], /none\.json: cannot read arrival plan/],
      ["no --plan", ["--workload", dir], /--plan FILE is required/],
      ["an unknown flag", ["--plan", DEMO, "--rate", "3"], /--rate/],
      ["a bad shard", ["--plan", DEMO, "--workload", dir, "--shard", "2/2"], /--shard: expected i\/N/],
      ["a missing workload", ["--plan", DEMO, "--workload", join(dir, "nowhere")], /nowhere: cannot read workload/],
    ];
    for (const [name, args, pattern] of cases) {
      await t.step(`${name}: message on stderr, exit 2, no stack trace`, async () => {
        const r = await runCli(args);
        assert.equal(r.code, 2, r.stdout + r.stderr);
        assert.match(r.stderr, pattern);
        assert.doesNotMatch(r.stderr, /^\s+at /m);
        assert.equal(r.stdout, "");
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the plan CLI warns about levels too short for the knee's percentile signals", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "plan_cli_length_" });
  try {
    await writeWorkload(dir); // chat and rag, both streamed; no class weights: each class 1 / 2
    const sweep = (step_duration_s: number, start_rps: number) => ({
      name: "short-sweep",
      arrivals: {
        process: "sweep",
        start_rps,
        step: { kind: "linear", step_rps: start_rps },
        max_rps: 2 * start_rps,
        step_duration_s,
      },
    });
    const short = join(dir, "short.json");
    await Deno.writeTextFile(short, JSON.stringify(sweep(20, 3)));

    await t.step("a stage whose n falls short: the n expected and needed and the step that would do", async () => {
      const r = await runCli(["--plan", short, "--workload", dir]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split("\n");
      const warnings = lines.filter((l) => l.startsWith("warning: "));
      // One warning line for the plan, as a run prints it: p95 short at both levels (step-02 per class), p99 at both;
      // the longest step any level needs is step-01's (below).
      assert.deepEqual(warnings, [
        "warning: plan too short for the knee: p95 untestable at 2 of 2 levels (make steps ≥ 30 s over all classes, " +
        `60 s per class), p99 at 2 of 2 (≥ 153 s, 306 s); each level: npx deno task plan --plan ${short}`,
      ]);
      // Under it, the detail: one line per short level.
      const levels = lines.filter((l) => l.startsWith("  plan too short for the knee: "));
      assert.equal(levels.length, 2, r.stdout);
      // step-01: 3 req/s × 20 s = 60 arrivals, 30 per class; p95: ⌈90 / 3⌉ = 30 s, ⌈90 / 1.5⌉ = 60 s;
      // p99: ⌈459 / 3⌉ = 153 s, ⌈459 / 1.5⌉ = 306 s
      assert.match(
        levels[0]!,
        /^ {2}plan too short for the knee: stage step-01 \(3 req\/s for 20 s; the baseline every level is judged against\): expected n = 60 over all classes \(chat 30, rag 30\); p95 needs n ≥ 90: a step ≥ 30 s for the all-class signals, 60 s for every class's; p99 needs n ≥ 459: a step ≥ 153 s for the all-class signals, 306 s for every class's\. /,
      );
      // step-02: 6 × 20 = 120 ≥ 90 over all classes, 60 per class; p99: ⌈459 / 6⌉ = 77 s, ⌈459 / 3⌉ = 153 s
      assert.match(levels[1]!, /stage step-02 \(6 req\/s for 20 s\): expected n = 120 over all classes \(chat 60, /);
      assert.match(levels[1]!, /p99 needs n ≥ 459: a step ≥ 77 s for the all-class signals, 153 s for every/);
    });

    await t.step("--json carries the check as data", async () => {
      const r = await runCli(["--plan", short, "--workload", dir, "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const { plan_length: pl } = JSON.parse(r.stdout);
      assert.equal(pl.confidence, 0.99);
      assert.equal(pl.warnings.length, 1);
      assert.equal(pl.level_warnings.length, 2);
      assert.deepEqual(pl.levels.map((l: { stages: string[] }) => l.stages), [["step-01"], ["step-02"]]);
      assert.deepEqual(pl.levels[0].expected.map((e: { expected_n: number }) => e.expected_n), [60, 30, 30]);
      assert.deepEqual(pl.levels[0].percentiles.map((p: { need: number }) => p.need), [90, 459]);
    });

    await t.step("a plan long enough for every signal prints nothing extra", async () => {
      // 60 and 120 req/s for 20 s: 1200 and 2400 arrivals, 600 and 1200 per class, all ≥ 459.
      const long = join(dir, "long.json");
      await Deno.writeTextFile(long, JSON.stringify(sweep(20, 60)));
      const r = await runCli(["--plan", long, "--workload", dir]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /warning|too short/);
      assert.deepEqual(
        JSON.parse((await runCli(["--plan", long, "--workload", dir, "--json"])).stdout).plan_length.warnings,
        [],
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
