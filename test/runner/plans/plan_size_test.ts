import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { PlanSpec } from "../../../schema/plan.ts";
import type { Workload } from "../../../schema/workload.ts";
import { MAX_PLANNED_REQUESTS, planSize, planSizeProblem } from "../../../runner/plans/plan_size.ts";
import { buildSchedule, loadPlan } from "../../../runner/schedule.ts";
import { runCli } from "../../support/run_cli.ts";
import { tinyCase, writeJson } from "../../../testing/tiny_workload.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CAP = MAX_PLANNED_REQUESTS; // 10,000,000

const workload: Workload = {
  workload: "w",
  version: "1",
  kind: "design",
  description: "",
  does_not_represent: [],
  tokenizer: "o200k_base",
  cases: [tinyCase({ case_id: "a", class: "chat" })],
};

const stage = (name: string, kind: string, process: string, rate_rps: number, duration_s: number, extra = {}) => ({
  name,
  kind,
  process,
  rate_rps,
  duration_s,
  ...extra,
});

/** Plans exactly at the cap (accepted) and just over it (refused), per process kind; the arithmetic in each name. */
const TABLE: { name: string; arrivals: unknown; requests: number; field: string; largest?: string }[] = [
  {
    name: "constant 1,000 req/s × 10,000 s = 10,000,000 (at the cap)",
    arrivals: { process: "constant", rate_rps: 1000, duration_s: 10_000 },
    requests: 10_000_000,
    field: "arrivals.rate_rps × arrivals.duration_s",
  },
  {
    name: "constant 1,000 req/s × 10,000.5 s = 10,000,500 (over)",
    arrivals: { process: "constant", rate_rps: 1000, duration_s: 10_000.5 },
    requests: 10_000_500,
    field: "arrivals.rate_rps × arrivals.duration_s",
  },
  {
    name: "poisson 1,000 req/s × 10,000 s = 10,000,000 (at the cap)",
    arrivals: { process: "poisson", rate_rps: 1000, duration_s: 10_000 },
    requests: 10_000_000,
    field: "arrivals.rate_rps × arrivals.duration_s",
  },
  {
    name: "poisson 1,000,000 req/s × 86,400 s = 86,400,000,000 (over)",
    arrivals: { process: "poisson", rate_rps: 1_000_000, duration_s: 86_400 },
    requests: 86_400_000_000,
    field: "arrivals.rate_rps × arrivals.duration_s",
  },
  {
    name: "gamma k = 4: 1,000 × 10,000 = 10,000,000, no excess for k ≥ 1 (at the cap)",
    arrivals: { process: "gamma", rate_rps: 1000, duration_s: 10_000, burstiness: 4 },
    requests: 10_000_000,
    field: "arrivals.rate_rps × arrivals.duration_s (+ (1/burstiness − 1)/2)",
  },
  {
    name:
      "gamma k = 2^-25: 1 × 10 + (33,554,432 − 1)/2 = 10 + 16,777,215.5 = 16,777,225.5 (over: front-loaded arrivals)",
    arrivals: { process: "gamma", rate_rps: 1, duration_s: 10, burstiness: 2 ** -25 },
    requests: 16_777_225.5,
    field: "arrivals.rate_rps × arrivals.duration_s (+ (1/burstiness − 1)/2)",
  },
  {
    name: "staged 100 × 50,000 + 500 × 10,000 = 5,000,000 + 5,000,000 = 10,000,000 (at the cap)",
    arrivals: {
      process: "staged",
      stages: [stage("warm", "warmup", "constant", 100, 50_000), stage("peak", "steady", "poisson", 500, 10_000)],
    },
    requests: 10_000_000,
    field: "arrivals.stages (Σ rate_rps × duration_s)",
    largest: "warm",
  },
  {
    name: "staged 100 × 60 + 20,000 × 1,000 = 6,000 + 20,000,000 = 20,006,000 (over; the largest is peak)",
    arrivals: {
      process: "staged",
      stages: [
        stage("warm", "warmup", "constant", 100, 60),
        stage("peak", "steady", "gamma", 20_000, 1000, {
          burstiness: 2,
        }),
      ],
    },
    requests: 20_006_000,
    field: "arrivals.stages (Σ rate_rps × duration_s)",
    largest: "peak",
  },
  {
    name: "sweep 500, 1,000, 1,500, 2,000 req/s × 2,000 s = 5,000 × 2,000 = 10,000,000 (at the cap)",
    arrivals: {
      process: "sweep",
      start_rps: 500,
      step: { kind: "linear", step_rps: 500 },
      max_rps: 2000,
      step_duration_s: 2000,
    },
    requests: 10_000_000,
    field: "arrivals.start_rps…max_rps × step_duration_s × repeats (Σ over steps)",
    largest: "step-04",
  },
  {
    name: "sweep 100, 200, 400 req/s, 2 repeats × 86,400 s: (100 + 200 + 400) × 2 × 86,400 = 120,960,000 (over)",
    arrivals: {
      process: "sweep",
      start_rps: 100,
      step: { kind: "geometric", factor: 2 },
      max_rps: 400,
      step_duration_s: 86_400,
      repeats: 2,
    },
    requests: 120_960_000,
    field: "arrivals.start_rps…max_rps × step_duration_s × repeats (Σ over steps)",
    largest: "step-03",
  },
];

Deno.test("a plan's expected size is computed from the plan alone, and one over 10,000,000 is refused", async (t) => {
  for (const row of TABLE) {
    await t.step(row.name, async () => {
      const spec = PlanSpec.parse({ name: "p", arrivals: row.arrivals });
      const size = await planSize(spec, ".");
      assert.equal(size?.requests, row.requests);
      assert.equal(size?.field, row.field);
      assert.equal(size?.largest?.name, row.largest);
      const problem = await planSizeProblem(spec, "plans/p.json", ".");
      if (row.requests <= CAP) return assert.equal(problem, null);
      assert.ok(problem?.startsWith(`plans/p.json: ${row.field}: `), problem ?? "");
      assert.match(problem!, /> 10,000,000, the most one plan may schedule/);
      if (row.largest) assert.match(problem!, new RegExp(`the largest, "${row.largest}", alone`));
    });
  }
});

Deno.test("max_requests bounds the expected size, and arrivals past it are never generated", async (t) => {
  const huge = { process: "poisson", rate_rps: 1_000_000, duration_s: 86_400 };
  await t.step("1e6 req/s for a day with max_requests 1,000 plans 1,000 (field max_requests)", async () => {
    const spec = PlanSpec.parse({ name: "p", arrivals: huge, max_requests: 1000 });
    assert.deepEqual(await planSize(spec, "."), { requests: 1000, field: "max_requests" });
    const built = await buildSchedule(spec, workload, { planDir: "." });
    assert.equal(built.entries.length, 1000);
    // The same seed's first 1,000 arrivals of a one-second plan: generation stopped, it did not change.
    const oneSecond = PlanSpec.parse({ name: "p", arrivals: { ...huge, duration_s: 1 }, max_requests: 1000 });
    const short = await buildSchedule(oneSecond, workload, { planDir: "." });
    assert.deepEqual(built.entries, short.entries);
    assert.equal(built.stages[0]?.end_ms, short.stages[0]?.end_ms);
  });
  await t.step(
    "a staged plan cut in its second stage: the same arrivals and stages as cutting the full schedule",
    async () => {
      const arrivals = {
        process: "staged",
        drain_s: 2,
        stages: [
          stage("warm", "warmup", "constant", 10, 3),
          stage("mid", "steady", "poisson", 20, 5),
          stage("peak", "steady", "gamma", 40, 5, { burstiness: 0.5 }),
        ],
      };
      const full = await buildSchedule(PlanSpec.parse({ name: "p", arrivals }), workload, { planDir: "." });
      // 10 × 3 = 30 arrivals in warm, so request 45 falls in mid; mid starts at 3 s + 2 s of drain = 5,000 ms.
      const cut = await buildSchedule(PlanSpec.parse({ name: "p", arrivals, max_requests: 45 }), workload, {
        planDir: ".",
      });
      assert.deepEqual(cut.entries, full.entries.slice(0, 45));
      const cutMs = full.entries[45]!.scheduled_ms;
      assert.ok(cutMs >= 5000 && cutMs < 10_000, `cut at ${cutMs}`);
      assert.deepEqual(cut.stages.map((s) => [s.name, s.end_ms]), [
        ["warm", 3000],
        ["drain-after-warm", 5000],
        ["mid", cutMs],
      ]);
    },
  );
});

Deno.test("random arrivals above the cap are refused when generated, not kept", async () => {
  // Poisson 1,000 req/s × 10,000 s: 10,000,000 expected (accepted up front); seed 2 draws 10,004,085 arrivals, so
  // generation stops at 10,000,001 and refuses the plan.
  const spec = PlanSpec.parse({
    name: "p",
    seed: 2,
    arrivals: { process: "poisson", rate_rps: 1000, duration_s: 10_000 },
  });
  assert.equal(await planSizeProblem(spec, "p.json", "."), null);
  await assert.rejects(
    () => buildSchedule(spec, workload, { planDir: ".", planFile: "p.json" }),
    (e: unknown) =>
      e instanceof InputError && /^p\.json: arrivals: more than 10,000,000 arrivals generated/.test(e.message),
  );
});

Deno.test("a trace's size is its rows, counted as a stream, header excluded", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "plan_size_trace_" });
  try {
    // 6 rows and a blank line: 6 rows (jsonl), or a header and 5 rows (csv).
    const rows = Array.from({ length: 6 }, (_, i) => JSON.stringify({ t: i * 10 }));
    await Deno.writeTextFile(join(dir, "t.jsonl"), rows.join("\n") + "\n\n");
    await Deno.writeTextFile(join(dir, "t.csv"), "t\r\n0\r\n10\r\n20\r\n30\r\n40");
    const trace = (file: string, format: string, extra = {}) =>
      PlanSpec.parse({ name: "p", arrivals: { process: "trace", file, format, time_field: "t", ...extra } });
    await t.step("jsonl: 6 rows; csv: 6 lines − 1 header = 5 rows", async () => {
      assert.deepEqual(await planSize(trace("t.jsonl", "jsonl"), dir), { requests: 6, field: "arrivals.file" });
      assert.deepEqual(await planSize(trace("t.csv", "csv"), dir), { requests: 5, field: "arrivals.file" });
    });
    await t.step(
      "at a bound of 6 rows the jsonl trace passes, at 5 it is refused even with max_requests 1",
      async () => {
        assert.equal(await planSizeProblem(trace("t.jsonl", "jsonl"), "p.json", dir, 6), null);
        const problem = await planSizeProblem(trace("t.jsonl", "jsonl", { max_requests: 1 }), "p.json", dir, 5);
        assert.match(problem ?? "", /^p\.json: arrivals\.file: 6 trace rows > 5, the most one plan may schedule/);
      },
    );
    await t.step("a missing trace counts 0 (generation names the file then)", async () => {
      assert.deepEqual(await planSize(trace("none.jsonl", "jsonl"), dir), { requests: 0, field: "arrivals.file" });
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task plan and deno task run refuse a plan of 1e6 req/s for a day: exit 2, no stack trace", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "plan_size_cli_" });
  try {
    const plan = writeJson(dir, "huge.json", {
      name: "huge",
      arrivals: { process: "poisson", rate_rps: 1_000_000, duration_s: 86_400 },
    });
    const expected = `${plan}: arrivals.rate_rps × arrivals.duration_s: 86,400,000,000 expected requests > 10,000,000`;
    const assertRefused = (r: { code: number; stderr: string; stdout: string }) => {
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.includes(expected), r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at |Error:/);
      assert.equal(r.stdout, "");
    };
    await t.step(
      "loadPlan (both CLIs' first step) names the file and field as one of the plan's problems",
      async () => {
        await assert.rejects(
          () => loadPlan(plan),
          (e: unknown) => e instanceof InputError && e.problems.some((p) => p.startsWith(expected)),
        );
      },
    );
    await t.step("deno task plan", async () => {
      assertRefused(await runCli(join(ROOT, "runner/cli/plan.ts"), ["--plan", plan], ["--allow-read"], { cwd: ROOT }));
    });
    await t.step("deno task run: refused before any run folder is made", async () => {
      const out = join(dir, "out");
      const r = await runCli(
        join(ROOT, "runner/cli/run.ts"),
        [
          "--workload",
          join(ROOT, "data/workloads/design-v1"),
          "--plan",
          plan,
          "--target",
          "http://127.0.0.1:9",
          "--out",
          out,
        ],
        ["-A"],
        { cwd: ROOT },
      );
      assertRefused(r);
      assert.equal(await Deno.stat(out).then(() => true, () => false), false);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
