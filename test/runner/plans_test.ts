import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../schema/errors.ts";
import { ArrivalProcess, type Stage, StagedProcess } from "../../schema/plan.ts";
import { Rng } from "../../runner/rng.ts";
import type { ArrivalContext } from "../../runner/plans/arrival.ts";
import { generateArrivals, type OpenArrivalProcess } from "../../runner/plans/generate.ts";

const TRACES = new URL("../../../shared/data/traces/", import.meta.url);
const AZURE_CODE = fileURLToPath(new URL("AzureLLMInferenceTrace_code.csv", TRACES));
const MOONCAKE = fileURLToPath(new URL("mooncake_conversation_trace.jsonl", TRACES));

function ctx(seed: number, planDir = "."): ArrivalContext {
  return { rng: new Rng(seed), planDir, planFile: "test-plan.json" };
}

function gen(spec: unknown, seed = 1, planDir = ".") {
  return generateArrivals(ArrivalProcess.parse(spec) as OpenArrivalProcess, ctx(seed, planDir));
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};
const gaps = (ts: number[]) => ts.slice(1).map((t, i) => t - (ts[i] as number));

/**
 * One case of the shared suite. `sigma` is the standard deviation of the
 * arrival count; the count must fall within `expected ± 4σ (+ bias)`.
 */
interface SuiteCase {
  name: string;
  spec: unknown;
  random: boolean;
  expected: number;
  sigma: number;
  /** Allowed offset of the mean count from rate × duration (renewal start-up). */
  bias?: number;
}

// σ of the count: Poisson √(λT); a gamma renewal process √(λT·CV²) = √(λT/k)
// for T much longer than a gap; constant has no randomness.
const SUITE: SuiteCase[] = [
  {
    name: "constant",
    spec: { process: "constant", rate_rps: 10, duration_s: 60 },
    random: false,
    expected: 600,
    sigma: 0,
  },
  {
    name: "poisson",
    spec: { process: "poisson", rate_rps: 10, duration_s: 60 },
    random: true,
    expected: 600,
    sigma: Math.sqrt(600),
  },
  {
    name: "gamma k=0.25",
    spec: { process: "gamma", rate_rps: 10, duration_s: 60, burstiness: 0.25 },
    random: true,
    expected: 600,
    sigma: Math.sqrt(600 / 0.25),
    bias: 1.5, // renewal start-up: E[N(T)] ≈ λT + (CV² − 1)/2 = λT + 1.5
  },
  {
    name: "gamma k=4",
    spec: { process: "gamma", rate_rps: 10, duration_s: 60, burstiness: 4 },
    random: true,
    expected: 600,
    sigma: Math.sqrt(600 / 4),
  },
  {
    name: "staged",
    spec: {
      process: "staged",
      drain_s: 2,
      stages: [
        { name: "w", kind: "warmup", process: "constant", rate_rps: 2, duration_s: 10 },
        { name: "p", kind: "steady", process: "poisson", rate_rps: 8, duration_s: 20 },
        { name: "b", kind: "burst", process: "gamma", rate_rps: 20, duration_s: 5, burstiness: 0.5 },
      ],
    },
    random: true,
    expected: 20 + 160 + 100,
    sigma: Math.sqrt(160 + 100 / 0.5),
    bias: 0.5,
  },
  {
    name: "sweep",
    spec: {
      process: "sweep",
      start_rps: 2,
      step: { kind: "linear", step_rps: 2 },
      max_rps: 6,
      step_duration_s: 20,
      drain_s: 2,
    },
    random: true,
    // Poisson steps of 2, 4 and 6 req/s for 20 s each: 40 + 80 + 120.
    expected: 240,
    sigma: Math.sqrt(240),
  },
];

Deno.test("every open arrival process passes the shared suite", async (t) => {
  for (const c of SUITE) {
    await t.step(c.name, async (t) => {
      const a = await gen(c.spec, 7);
      const last = a.stages[a.stages.length - 1] as Stage;
      await t.step("times are sorted and within [0, end of the last stage)", () => {
        assert.ok(a.timesMs.length > 0);
        assert.ok(a.timesMs.every((x, i) => x >= 0 && (i === 0 || x >= (a.timesMs[i - 1] as number))));
        assert.ok((a.timesMs[a.timesMs.length - 1] as number) < last.end_ms);
      });
      await t.step("stages are contiguous from ms 0 and each arrival lies in a stage that offers load", () => {
        assert.equal(a.stages[0]?.start_ms, 0);
        a.stages.forEach((s, i) => i > 0 && assert.equal(s.start_ms, a.stages[i - 1]?.end_ms));
        for (const x of a.timesMs) {
          const s = a.stages.find((s) => s.start_ms <= x && x < s.end_ms);
          assert.ok(s && s.offered_rps > 0, `arrival at ${x} ms is in no loaded stage`);
        }
      });
      await t.step("the realised count is within ±4σ of rate × duration", () => {
        const tol = 4 * c.sigma + (c.bias ?? 0);
        assert.ok(
          Math.abs(a.timesMs.length - c.expected) <= tol,
          `${a.timesMs.length} arrivals, expected ${c.expected} ± ${tol.toFixed(1)}`,
        );
      });
      await t.step("the same seed gives the same times; another seed differs when random", async () => {
        assert.deepEqual((await gen(c.spec, 7)).timesMs, a.timesMs);
        const other = (await gen(c.spec, 8)).timesMs;
        if (c.random) assert.notDeepEqual(other, a.timesMs);
        else assert.deepEqual(other, a.timesMs);
      });
    });
  }
});

Deno.test("constant fires arrival i at exactly i / rate", async () => {
  const a = await gen({ process: "constant", rate_rps: 3, duration_s: 2 });
  // 3 req/s for 2 s: 0, 333.3…, 666.6…, 1000, 1333.3…, 1666.6… ms.
  assert.deepEqual(a.timesMs, [0, 1000 / 3, 2000 / 3, 1000, 4000 / 3, 5000 / 3]);
  for (const g of gaps(a.timesMs)) assert.ok(Math.abs(g - 1000 / 3) < 1e-9);
  assert.deepEqual(a.stages, [{ name: "constant", kind: "steady", start_ms: 0, end_ms: 2000, offered_rps: 3 }]);
});

Deno.test("poisson arrivals have exponential gaps and Poisson counts", async (t) => {
  // 50 req/s for 200 s: n ≈ 10 000 gaps.
  const a = await gen({ process: "poisson", rate_rps: 50, duration_s: 200 }, 3);
  await t.step("the CV of the gaps is 1 ± 0.04", () => {
    // For exponential gaps the sample CV has SE ≈ 1/√n = 0.01; 4σ = 0.04.
    const g = gaps(a.timesMs);
    const cv = Math.sqrt(variance(g)) / mean(g);
    assert.ok(Math.abs(cv - 1) < 0.04, `CV ${cv}`);
  });
  await t.step("the index of dispersion of 1-s counts is 1 ± 0.4", () => {
    // (W−1)·D ~ χ²(W−1) for W = 200 windows: sd(D) = √(2/199) ≈ 0.1; 4σ = 0.4.
    const counts = new Array(200).fill(0);
    for (const x of a.timesMs) counts[Math.floor(x / 1000)]++;
    const d = variance(counts) / mean(counts);
    assert.ok(Math.abs(d - 1) < 0.4, `dispersion ${d}`);
  });
});

Deno.test("gamma gaps have CV² = 1/burstiness and mean 1/rate", async (t) => {
  // Delta method for CV² = s²/m² of n gamma(k) gaps: Var(ln CV²) ≈ (2 + 2/k)/n.
  // n ≈ 10 000: k = 0.25 → sd 3.2 %, k = 4 → sd 1.6 %; allowed: 4σ relative.
  for (const [k, relTol] of [[0.25, 0.13], [4, 0.064]] as const) {
    await t.step(`k = ${k}`, async () => {
      const a = await gen({ process: "gamma", rate_rps: 50, duration_s: 200, burstiness: k }, 11);
      const g = gaps(a.timesMs);
      const cv2 = variance(g) / mean(g) ** 2;
      assert.ok(Math.abs(cv2 * k - 1) < relTol, `CV² ${cv2}, expected ${1 / k}`);
      // Mean gap 20 ms; its SE is 20·CV/√n: k = 0.25 → 0.4 ms, 4σ = 1.6 ms.
      assert.ok(Math.abs(mean(g) - 20) < 1.6, `mean gap ${mean(g)}`);
    });
  }
});

Deno.test("staged plans run stages in order with empty drains", async (t) => {
  const spec = {
    process: "staged",
    drain_s: 4,
    stages: [
      { name: "warm", kind: "warmup", process: "poisson", rate_rps: 2, duration_s: 15 },
      { name: "mid", kind: "steady", process: "poisson", rate_rps: 6, duration_s: 15 },
      { name: "burst", kind: "burst", process: "constant", rate_rps: 16, duration_s: 6 },
    ],
  };
  const a = await gen(spec, 5);
  await t.step("stages alternate with drains and the last drain is final", () => {
    assert.deepEqual(a.stages.map((s) => [s.name, s.kind, s.start_ms, s.end_ms, s.offered_rps]), [
      ["warm", "warmup", 0, 15000, 2],
      ["drain-after-warm", "drain", 15000, 19000, 0],
      ["mid", "steady", 19000, 34000, 6],
      ["drain-after-mid", "drain", 34000, 38000, 0],
      ["burst", "burst", 38000, 44000, 16],
      ["drain-after-burst", "drain", 44000, 48000, 0],
    ]);
  });
  const inStage = (s: Stage) => a.timesMs.filter((x) => x >= s.start_ms && x < s.end_ms).length;
  await t.step("drains have no arrivals", () => {
    for (const s of a.stages.filter((s) => s.kind === "drain")) assert.equal(inStage(s), 0, s.name);
  });
  await t.step("each stage holds rate × duration arrivals (±4σ)", () => {
    // Poisson stages: 30 ± 4√30, 90 ± 4√90; the constant burst exactly 16 × 6 = 96.
    const [warm, , mid, , burst] = a.stages as Stage[];
    assert.ok(Math.abs(inStage(warm as Stage) - 30) <= 4 * Math.sqrt(30));
    assert.ok(Math.abs(inStage(mid as Stage) - 90) <= 4 * Math.sqrt(90));
    assert.equal(inStage(burst as Stage), 96);
    assert.equal(inStage(warm as Stage) + inStage(mid as Stage) + 96, a.timesMs.length);
  });
  await t.step("final_drain false ends on the last stage; drain_s 0 has no drains", async () => {
    const noFinal = await gen({ ...spec, final_drain: false });
    assert.equal(noFinal.stages.at(-1)?.name, "burst");
    const noDrain = await gen({ ...spec, drain_s: 0 });
    assert.deepEqual(noDrain.stages.map((s) => s.name), ["warm", "mid", "burst"]);
    assert.equal(noDrain.stages[1]?.start_ms, 15000);
  });
  await t.step("a first stage that is not warmup is refused as the cold start", async () => {
    const bad = { ...spec, stages: [{ ...spec.stages[1], name: "x" }, ...spec.stages.slice(1)] };
    await assert.rejects(gen(bad), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /test-plan\.json: arrivals\.stages\.0\.kind: .*cold.*"warmup", not "steady"/);
      return true;
    });
  });
  await t.step("a gamma stage without burstiness fails validation", () => {
    const r = StagedProcess.safeParse({ ...spec, stages: [{ ...spec.stages[0], process: "gamma" }] });
    assert.equal(r.success, false);
    assert.deepEqual(r.error?.issues[0]?.path, ["stages", 0, "burstiness"]);
  });
});

Deno.test("trace replay keeps the trace's own gaps", async (t) => {
  await t.step("Azure code trace: first arrival at 0, gaps from the timestamps, ÷ speedup", async () => {
    const a = await gen({ process: "trace", file: AZURE_CODE, format: "azure_csv", speedup: 4, duration_s: 60 });
    // First rows: 18:17:03.9799600, :04.0319600, :04.0781490, :04.1206440, :04.4249540.
    // Offsets from the first: 52.0, 98.189, 140.684, 444.994 ms; ÷ 4 = 13, 24.54725, 35.171, 111.2485.
    const expected = [0, 13, 24.54725, 35.171, 111.2485];
    expected.forEach((x, i) => assert.ok(Math.abs((a.timesMs[i] as number) - x) < 1e-9, `arrival ${i}`));
    // Independent count: rows whose timestamp is < 60 s × 4 = 240 s after the first,
    // compared as whole 100-ns ticks within the day.
    const lines = (await Deno.readTextFile(AZURE_CODE)).split("\n").slice(1);
    const ticks = lines.map((l) => {
      const [hms, frac] = (l.split(",")[0] as string).split(" ")[1]!.split(".") as [string, string];
      const [h, m, s] = hms.split(":").map(Number) as [number, number, number];
      return ((h * 60 + m) * 60 + s) * 1e7 + Number(frac);
    });
    const within = ticks.filter((x) => x - (ticks[0] as number) < 240 * 1e7).length;
    assert.equal(a.timesMs.length, within);
    assert.ok(within > 500 && within < 8819); // the cut really cut
    assert.deepEqual(a.stages, [{
      name: "trace",
      kind: "steady",
      start_ms: 0,
      end_ms: 60000,
      offered_rps: within / 60,
    }]);
  });
  await t.step("Azure start_offset_s: times restart at the first kept row", async () => {
    const a = await gen({
      process: "trace",
      file: AZURE_CODE,
      format: "azure_csv",
      start_offset_s: 0.1,
      max_requests: 3,
    });
    // Rows ≥ 0.1 s after 03.9799600 start at 04.1206440 (offset 140.684 ms); the
    // next are 04.4249540 (+304.31 ms) and 04.5191470 (+398.503 ms).
    [0, 304.31, 398.503].forEach((x, i) => assert.ok(Math.abs((a.timesMs[i] as number) - x) < 1e-9));
    assert.equal(a.timesMs.length, 3);
    // Cut by max_requests: the stage ends at the first dropped arrival, 04.6785310 (+557.887 ms).
    assert.ok(Math.abs((a.stages[0]?.end_ms as number) - 557.887) < 1e-9);
    assert.ok(Math.abs((a.stages[0]?.offered_rps as number) - 3 / 0.557887) < 1e-9);
  });
  await t.step("Mooncake conversation trace: ms timestamps, ÷ speedup, cut at the duration", async () => {
    const a = await gen({ process: "trace", file: MOONCAKE, format: "mooncake_jsonl", speedup: 2, duration_s: 30 });
    // Lines 1-10 are at 0 ms, lines 11-26 at 3000 ms, lines 27-29 at 5999 ms: ÷ 2 → 0, 1500, 2999.5.
    assert.deepEqual(a.timesMs.slice(0, 30), [
      ...Array(10).fill(0),
      ...Array(16).fill(1500),
      ...Array(3).fill(2999.5),
      4500,
    ]);
    const stamps = (await Deno.readTextFile(MOONCAKE)).split("\n").filter((l) => l.trim())
      .map((l) => JSON.parse(l).timestamp as number);
    assert.equal(a.timesMs.length, stamps.filter((ms) => ms / 2 < 30000).length);
    assert.ok(a.timesMs.length < stamps.length);
  });
});

Deno.test("generic csv and jsonl traces read time_field in time_unit", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "plans_test_" });
  try {
    await Deno.writeTextFile(join(dir, "t.csv"), "id,t_s\na,10.5\nb,10\nc,12.25\n");
    await Deno.writeTextFile(join(dir, "t.jsonl"), '{"at_us": 2000}\n\n{"at_us": 5500}\n{"at_us": 2500}');
    await t.step("csv in seconds, unsorted rows are sorted, file relative to planDir", async () => {
      const a = await gen(
        { process: "trace", file: "t.csv", format: "csv", time_field: "t_s", time_unit: "s" },
        1,
        dir,
      );
      assert.deepEqual(a.timesMs, [0, 500, 2250]); // 10, 10.5, 12.25 s from 10 s
    });
    await t.step("jsonl in microseconds with speedup 0.5", async () => {
      const spec = { process: "trace", file: "t.jsonl", format: "jsonl", time_field: "at_us", time_unit: "us" };
      const a = await gen({ ...spec, speedup: 0.5 }, 1, dir);
      assert.deepEqual(a.timesMs, [0, 1, 7]); // (0, 0.5, 3.5 ms) ÷ 0.5
    });
    await t.step("a bad row names the file and line", async () => {
      await Deno.writeTextFile(join(dir, "bad.csv"), "t_s\n1\nsoon\n");
      const spec = { process: "trace", file: "bad.csv", format: "csv", time_field: "t_s", time_unit: "s" };
      await assert.rejects(gen(spec, 1, dir), (e: unknown) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, /bad\.csv: line 3: t_s: expected a number of s, got "soon"/);
        return true;
      });
      await Deno.writeTextFile(join(dir, "bad.jsonl"), '{"timestamp": 0}\n{"timestamp": 5\n');
      await assert.rejects(gen({ process: "trace", file: "bad.jsonl", format: "mooncake_jsonl" }, 1, dir), /line 2/);
      await Deno.writeTextFile(join(dir, "bad_azure.csv"), "TIMESTAMP,A\n2023-11-16 18:17:03.9799600,1\nnoon,2");
      await assert.rejects(
        gen({ process: "trace", file: "bad_azure.csv", format: "azure_csv" }, 1, dir),
        /bad_azure\.csv: line 3: TIMESTAMP/,
      );
    });
    await t.step("a missing trace file names the plan's arrivals.file", async () => {
      await assert.rejects(gen({ process: "trace", file: "nope.csv", format: "azure_csv" }, 1, dir), (e: unknown) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, /test-plan\.json: arrivals\.file: cannot read trace .*nope\.csv/);
        return true;
      });
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
