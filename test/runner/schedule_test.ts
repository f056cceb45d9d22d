import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../schema/errors.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { PlanSpec, type ScheduledRequest, type Workload, type WorkloadCase } from "../../schema/mod.ts";
import {
  buildSchedule,
  loadPlan,
  readSchedule,
  saveSchedule,
  scheduleSha256,
  summarizeSchedule,
} from "../../runner/schedule.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";
import { stringify } from "csv-stringify/sync";
import { SCHEDULE_COLUMNS, SCHEDULE_STRINGIFY_OPTIONS, scheduleCsvBytes } from "../../runner/plans/schedule_csv.ts";

const PLANS = fileURLToPath(new URL("../../data/plans/", import.meta.url));
const AZURE_CODE = fileURLToPath(
  new URL("../../../shared/data/traces/AzureLLMInferenceTrace_code.csv", import.meta.url),
);
const MOONCAKE = fileURLToPath(
  new URL("../../../shared/data/traces/mooncake_conversation_trace.jsonl", import.meta.url),
);

/** A workload with `n` cases in each class (case ids `<class>-<i>`). */
function workload(perClass: Record<string, number>): Workload {
  const cases: WorkloadCase[] = Object.entries(perClass).flatMap(([cls, n]) =>
    Array.from({ length: n }, (_, i) =>
      tinyCase({
        case_id: `${cls}-${i}`,
        class: cls,
        priority: 0,
        messages: [{ role: "user", content: `${cls} ${i}` }],
        input_tokens: 2,
        prompt_sha256: "0".repeat(64),
        max_output_tokens: 8,
        expected_output_tokens: 4,
        reference_output: "ok",
        quality_check: { kind: "exact", value: "ok", normalize: true },
      }))
  );
  return {
    workload: "fixture",
    version: "1",
    kind: "design",
    description: "test fixture",
    does_not_represent: [],
    tokenizer: "o200k_base",
    cases,
  };
}

const W = workload({ chat: 4, rag: 3, tools: 2 });
const plan = (p: Record<string, unknown>) => PlanSpec.parse({ name: "t", ...p });
const STAGED = {
  process: "staged",
  drain_s: 2,
  stages: [
    { name: "warm", kind: "warmup", process: "poisson", rate_rps: 5, duration_s: 10 },
    { name: "peak", kind: "steady", process: "gamma", rate_rps: 20, duration_s: 10, burstiness: 0.5 },
  ],
};

Deno.test("buildSchedule numbers arrivals and labels stages", async (t) => {
  const built = await buildSchedule(plan({ seed: 3, arrivals: STAGED }), W, { planDir: "." });
  await t.step("request ids are r + 7 digits in time order", () => {
    assert.equal(built.mode, "open");
    assert.equal(built.totalPlanned, built.entries.length);
    built.entries.forEach((e, i) => {
      assert.equal(e.request_id, `r${String(i).padStart(7, "0")}`);
      assert.equal(e.shard, 0);
      if (i > 0) assert.ok(e.scheduled_ms >= (built.entries[i - 1] as ScheduledRequest).scheduled_ms);
    });
  });
  await t.step("each entry's stage is the stage containing its time", () => {
    for (const e of built.entries) {
      const s = built.stages.find((s) => s.start_ms <= e.scheduled_ms && e.scheduled_ms < s.end_ms);
      assert.equal(e.stage, s?.name);
    }
    assert.deepEqual(new Set(built.entries.map((e) => e.stage)), new Set(["warm", "peak"]));
  });
  await t.step("each entry's case is assignCase(i) and belongs to its class", () => {
    built.entries.forEach((e, i) => {
      assert.equal(e.case_id, built.assignCase(i).case_id);
      assert.ok(e.case_id.startsWith(`${e.class}-`));
    });
  });
  await t.step("summarizeSchedule counts per stage and per class", () => {
    const s = summarizeSchedule(built);
    assert.deepEqual(s.stages.map((x) => x.name), ["warm", "drain-after-warm", "peak", "drain-after-peak"]);
    assert.equal(s.stages.reduce((n, x) => n + x.requests, 0), built.entries.length);
    assert.equal(s.stages[1]?.requests, 0);
    const warm = s.stages[0]!;
    assert.equal(warm.requests, built.entries.filter((e) => e.stage === "warm").length);
    assert.equal(warm.realised_rps, warm.requests / 10); // a 10-s stage
    assert.equal(warm.planned_rps, 5);
    assert.equal(Object.values(s.classes).reduce((a, b) => a + b, 0), built.entries.length);
  });
});

Deno.test("schedule.csv is byte for byte what csv-stringify writes, for ids with commas, quotes, line ends and text in other scripts", async () => {
  // Fields drawn from the characters that decide quoting (`,` `"` `\n` `\r`), spaces, multi-byte text, and the empty
  // string; numbers from whole to the smallest subnormal.
  const pieces = ["", "a", ",", '"', "\n", "\r", " ", "é", "漢", "🚀", "x,y", 'say "hi"', "line\r\nend"];
  let seed = 7;
  const pick = () => pieces[(seed = (seed * 48271) % 2147483647) % pieces.length]!;
  const text = () => pick() + pick() + pick();
  const entries: ScheduledRequest[] = Array.from({ length: 2000 }, (_, i) => ({
    request_id: i % 7 === 0 ? text() : `r${String(i).padStart(7, "0")}`,
    scheduled_ms: [0, 1e-7, 5e-324, 0.1 + 0.2, 1234.5678, 1e21][i % 6]! + i,
    case_id: text(),
    class: text(),
    stage: i % 3 === 0 ? "" : text(),
    shard: i % 4,
  }));
  const rows = entries.map((e) => SCHEDULE_COLUMNS.map((k) => e[k]));
  const expected = new TextEncoder().encode(stringify(rows, { header: true, ...SCHEDULE_STRINGIFY_OPTIONS }));
  assert.deepEqual(scheduleCsvBytes(entries), expected);
  const dir = await Deno.makeTempDir();
  await saveSchedule(dir, entries);
  assert.deepEqual(await readSchedule(join(dir, "schedule.csv")), entries);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the same seed gives the same schedule and sha256; another seed does not", async () => {
  const a = await buildSchedule(plan({ seed: 9, arrivals: STAGED }), W, { planDir: "." });
  const b = await buildSchedule(plan({ seed: 9, arrivals: STAGED }), W, { planDir: "." });
  const c = await buildSchedule(plan({ seed: 10, arrivals: STAGED }), W, { planDir: "." });
  assert.deepEqual(a.entries, b.entries);
  assert.equal(await scheduleSha256(a.entries), await scheduleSha256(b.entries));
  assert.notDeepEqual(a.entries.map((e) => e.scheduled_ms), c.entries.map((e) => e.scheduled_ms));
  assert.notEqual(await scheduleSha256(a.entries), await scheduleSha256(c.entries));
});

Deno.test("shards partition the full schedule", async () => {
  const spec = plan({ seed: 4, arrivals: { process: "poisson", rate_rps: 30, duration_s: 10 } });
  const full = await buildSchedule(spec, W, { planDir: "." });
  const parts = await Promise.all(
    [0, 1, 2].map((index) => buildSchedule(spec, W, { planDir: ".", shard: { index, count: 3 } })),
  );
  parts.forEach((p, i) => {
    assert.equal(p.totalPlanned, full.totalPlanned);
    assert.deepEqual(p.stages, full.stages);
    for (const e of p.entries) {
      assert.equal(e.shard, i);
      assert.equal(Number(e.request_id.slice(1)) % 3, i);
    }
  });
  const union = parts.flatMap((p) => p.entries).map((e) => ({ ...e, shard: 0 }));
  union.sort((x, y) => x.request_id.localeCompare(y.request_id));
  assert.equal(new Set(union.map((e) => e.request_id)).size, union.length); // disjoint
  assert.deepEqual(union, full.entries);
  await assert.rejects(buildSchedule(spec, W, { planDir: ".", shard: { index: 3, count: 3 } }), InputError);
});

Deno.test("the case mix follows the class weights", async (t) => {
  // n = 6000 draws with weights chat 3, rag 1, tools 0: expect 4500 / 1500 / 0.
  const n = 6000;
  const spec = plan({ seed: 2, arrivals: { process: "constant", rate_rps: 100, duration_s: n / 100 } });
  await t.step("weighted classes: χ² (1 df) below 15.1, the 0.01 % critical value", async () => {
    const built = await buildSchedule({ ...spec, mix: { class_weights: { chat: 3, rag: 1, tools: 0 } } }, W, {
      planDir: ".",
    });
    const count = (cls: string) => built.entries.filter((e) => e.class === cls).length;
    assert.equal(count("tools"), 0);
    const chi2 = (count("chat") - 4500) ** 2 / 4500 + (count("rag") - 1500) ** 2 / 1500;
    assert.ok(chi2 < 15.1, `χ² ${chi2}: ${count("chat")} / ${count("rag")}`);
    // Uniform within a class: 4 chat cases, ≈ 1125 each; χ² (3 df) below 21.1 (0.01 %).
    const perCase = [0, 1, 2, 3].map((i) => built.entries.filter((e) => e.case_id === `chat-${i}`).length);
    const e = count("chat") / 4;
    const chi2c = perCase.reduce((s, o) => s + (o - e) ** 2 / e, 0);
    assert.ok(chi2c < 21.1, `χ² ${chi2c}: ${perCase}`);
  });
  await t.step("empty weights draw every workload class equally: χ² (2 df) below 18.4", async () => {
    const built = await buildSchedule(spec, W, { planDir: "." });
    const counts = ["chat", "rag", "tools"].map((c) => built.entries.filter((e) => e.class === c).length);
    const chi2 = counts.reduce((s, o) => s + (o - n / 3) ** 2 / (n / 3), 0);
    assert.ok(chi2 < 18.4, `χ² ${chi2}: ${counts}`);
  });
  await t.step("a class the workload lacks is refused, naming mix.class_weights.<class>", async () => {
    await assert.rejects(
      buildSchedule({ ...spec, mix: { class_weights: { chat: 1, poetry: 2 } } }, W, {
        planDir: ".",
        planFile: "p.json",
      }),
      (e: unknown) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, /p\.json: mix\.class_weights\.poetry: class "poetry" is not in workload fixture/);
        return true;
      },
    );
    await assert.rejects(
      buildSchedule({ ...spec, mix: { class_weights: { chat: 0 } } }, W, { planDir: "." }),
      /every weight is 0/,
    );
  });
  await t.step("the mix does not depend on the arrival process", async () => {
    const other = await buildSchedule(
      { ...spec, arrivals: { process: "poisson", rate_rps: 100, duration_s: 1 } },
      W,
      { planDir: "." },
    );
    const base = await buildSchedule(spec, W, { planDir: "." });
    other.entries.forEach((e, i) => assert.equal(e.case_id, base.entries[i]?.case_id));
  });
});

Deno.test("max_requests truncates the schedule and its timeline", async () => {
  const spec = plan({ seed: 1, arrivals: STAGED, max_requests: 20 });
  const full = await buildSchedule({ ...spec, max_requests: undefined }, W, { planDir: "." });
  const cut = await buildSchedule(spec, W, { planDir: "." });
  assert.equal(cut.totalPlanned, 20);
  assert.deepEqual(cut.entries, full.entries.slice(0, 20));
  // Poisson 5 req/s for 10 s gives ≈ 50 warmup arrivals, so the 21st is still in the warmup.
  assert.deepEqual(cut.stages.map((s) => s.name), ["warm"]);
  assert.equal(cut.stages[0]?.end_ms, full.entries[20]?.scheduled_ms);
});

Deno.test("a closed plan has no precomputed arrivals but draws cases the same way", async () => {
  const closed = plan({ seed: 2, arrivals: { process: "closed", users: 8, duration_s: 30 } });
  const built = await buildSchedule(closed, W, { planDir: "." });
  assert.equal(built.mode, "closed");
  assert.deepEqual(built.entries, []);
  assert.deepEqual(built.stages, [{ name: "closed", kind: "steady", start_ms: 0, end_ms: 30000, offered_rps: 0 }]);
  const open = await buildSchedule({ ...closed, arrivals: { process: "constant", rate_rps: 10, duration_s: 3 } }, W, {
    planDir: ".",
  });
  open.entries.forEach((e, i) => assert.equal(built.assignCase(i).case_id, e.case_id));
});

Deno.test("schedule.csv round-trips exactly and its sha256 is of the bytes written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schedule_test_" });
  try {
    const built = await buildSchedule(plan({ seed: 5, arrivals: STAGED }), W, { planDir: "." });
    const saved = await saveSchedule(join(dir, "run"), built.entries);
    assert.equal(saved.file, "schedule.csv");
    const path = join(dir, "run", "schedule.csv");
    const bytes = await Deno.readFile(path);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    assert.equal(saved.sha256, Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""));
    const text = new TextDecoder().decode(bytes);
    assert.equal(text.split("\n")[0], "request_id,scheduled_ms,case_id,class,stage,shard");
    const back = await readSchedule(path);
    assert.deepEqual(back, built.entries); // scheduled_ms compared as doubles, bit for bit
    assert.ok(back.some((e) => !Number.isInteger(e.scheduled_ms)));
    await Deno.writeTextFile(path, text.replace(/\nr0000002,[^,]*,/, "\nr0000002,later,"));
    await assert.rejects(readSchedule(path), /schedule\.csv: line 4: scheduled_ms/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bad plan files are refused naming the file and the field or line", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "schedule_test_plans_" });
  const write = async (name: string, value: unknown) => {
    const path = join(dir, name);
    await Deno.writeTextFile(path, JSON.stringify(value));
    return path;
  };
  const refused = async (path: string, pattern: RegExp) => {
    await assert.rejects(
      (async () => {
        const p = await loadPlan(path);
        await buildSchedule(p.spec, W, { planDir: p.planDir, planFile: p.planFile });
      })(),
      (e: unknown) => {
        assert.ok(e instanceof InputError, String(e));
        assert.ok(e.message.includes(path), e.message);
        assert.match(e.message, pattern);
        return true;
      },
    );
  };
  try {
    const staged = (stages: unknown[]) => ({ name: "x", arrivals: { ...STAGED, stages } });
    const warm = STAGED.stages[0]!;
    const cases: [string, unknown, RegExp][] = [
      [
        "unknown process",
        { name: "x", arrivals: { process: "ramp", rate_rps: 1, duration_s: 1 } },
        /arrivals\.process/,
      ],
      [
        "negative rate",
        { name: "x", arrivals: { process: "poisson", rate_rps: -2, duration_s: 1 } },
        /arrivals\.rate_rps/,
      ],
      ["missing field", { name: "x", arrivals: { process: "constant", rate_rps: 2 } }, /arrivals\.duration_s/],
      ["gamma stage without burstiness", staged([{ ...warm, process: "gamma" }]), /arrivals\.stages\.0\.burstiness/],
      ["first stage not warmup", staged([{ ...warm, kind: "steady" }]), /arrivals\.stages\.0\.kind: .*cold/],
      [
        "trace file missing",
        { name: "x", arrivals: { process: "trace", file: "gone.csv", format: "azure_csv" } },
        /arrivals\.file: cannot read trace/,
      ],
      [
        "csv trace without time_field",
        { name: "x", arrivals: { process: "trace", file: "t.csv", format: "csv" } },
        /arrivals\.time_field/,
      ],
    ];
    for (const [name, value, pattern] of cases) {
      const path = await write(`${name.replaceAll(" ", "_")}.json`, value);
      await t.step(name, () => refused(path, pattern));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the shipped plan files load and build", async (t) => {
  // A shipped plan draws the classes of the workload named like it (data/plans/chat-example.json: the chat-example
  // workload; engine-validation-sweep.json, and engine-sweep.json by the first word: engine-validation), else the design
  // workload's (a class mix may name one).
  const workloads = [...Deno.readDirSync(join(PLANS, "../workloads"))].filter((e) => e.isDirectory).map((e) => e.name);
  const workloadOf = async (plan: string) => {
    const own = workloads.find((w) => plan === `${w}.json` || plan.startsWith(`${w}-`)) ??
      workloads.find((w) => w !== "design-v1" && plan.startsWith(`${w.split("-")[0]}-`));
    return (await loadWorkload(join(PLANS, "../workloads", own ?? "design-v1"))).workload;
  };
  for await (const f of Deno.readDir(PLANS)) {
    if (!f.name.endsWith(".json")) continue;
    await t.step(f.name, async () => {
      const p = await loadPlan(join(PLANS, f.name));
      const built = await buildSchedule(p.spec, await workloadOf(f.name), { planDir: p.planDir, planFile: p.planFile });
      if (built.mode === "open") assert.ok(built.totalPlanned > 0);
    });
  }
  // The replay plans read the head of each trace that the clone carries (data/traces/README.md): the schedule they build
  // is the one the whole published trace gives, entry for entry.
  for (const [plan, whole] of [["azure-code-replay.json", AZURE_CODE], ["mooncake-replay.json", MOONCAKE]] as const) {
    await t.step(`${plan} reads data/traces/ and builds the whole trace's schedule`, async () => {
      const p = await loadPlan(join(PLANS, plan));
      assert.equal(p.spec.arrivals.process, "trace");
      assert.match((p.spec.arrivals as { file: string }).file, /^\.\.\/traces\//);
      const built = await buildSchedule(p.spec, W, { planDir: p.planDir });
      const direct = await buildSchedule(
        { ...p.spec, arrivals: { ...p.spec.arrivals, file: whole } as typeof p.spec.arrivals },
        W,
        { planDir: "/" },
      );
      assert.ok(built.entries.length > 100, `${built.entries.length} entries`);
      assert.deepEqual(built.entries, direct.entries);
    });
  }
  await t.step("demo-staged lasts 80-100 s and starts with a warmup", async () => {
    const p = await loadPlan(join(PLANS, "demo-staged.json"));
    const built = await buildSchedule(p.spec, W, { planDir: p.planDir });
    assert.equal(built.stages[0]?.kind, "warmup");
    const end = built.stages.at(-1)!.end_ms;
    assert.ok(end >= 80000 && end <= 100000, `${end} ms`);
  });
});
