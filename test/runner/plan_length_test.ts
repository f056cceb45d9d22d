import assert from "node:assert/strict";
import type { Stage } from "../../schema/plan.ts";
import { type MixShares, planLengthCheck, planLengthOf } from "../../runner/plan_length.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";

/** A stage of `seconds` at `rps` starting at `startS`. */
const stage = (name: string, startS: number, seconds: number, rps: number, kind: Stage["kind"] = "steady"): Stage => ({
  name,
  kind,
  start_ms: startS * 1000,
  end_ms: (startS + seconds) * 1000,
  offered_rps: rps,
});
const TWO_EQUAL: MixShares = { classes: { chat: 0.5, rag: 0.5 }, streamed: () => true };
const ONE: MixShares = { classes: { qa: 1 }, streamed: () => true };

Deno.test("planLengthCheck(): the n each level can expect, the n it needs and the step that would do", async (t) => {
  // A sweep of 20-s steps at 3, 6 and 12 req/s, two classes of equal chance, both streamed.
  const sweep = [stage("step-01", 0, 20, 3), stage("step-02", 20, 20, 6), stage("step-03", 40, 20, 12)];
  const c = planLengthCheck(sweep, TWO_EQUAL);
  const [l1, l2, l3] = c.levels;
  await t.step("expected n = ⌊rate × seconds × share⌋ per scope", () => {
    // 3 × 20 = 60 over all classes, 60 × 0.5 = 30 per class; 6 × 20 = 120 / 60; 12 × 20 = 240 / 120
    assert.deepEqual(l1!.expected.map((e) => [e.scope, e.expected_n]), [["all", 60], ["chat", 30], ["rag", 30]]);
    assert.deepEqual(l2!.expected.map((e) => e.expected_n), [120, 60, 60]);
    assert.deepEqual(l3!.expected.map((e) => e.expected_n), [240, 120, 120]);
    assert.deepEqual(c.levels.map((l) => l.baseline), [true, false, false]);
  });
  await t.step("the scopes short of each percentile's need (p95: 90, p99: 459)", () => {
    assert.deepEqual(l1!.percentiles.map((p) => [p.need, p.short]), [[90, ["all", "chat", "rag"]], [459, [
      "all",
      "chat",
      "rag",
    ]]]);
    // 120 ≥ 90 over all classes, 60 < 90 per class; 120 < 459 everywhere
    assert.deepEqual(l2!.percentiles.map((p) => p.short), [["chat", "rag"], ["all", "chat", "rag"]]);
    // 240 and 120 ≥ 90: p95 met; p99 short everywhere
    assert.deepEqual(l3!.percentiles.map((p) => p.short), [[], ["all", "chat", "rag"]]);
    assert.deepEqual(c.levels.map((l) => l.too_short), [true, true, true]);
  });
  await t.step("the step length that would do: ⌈need / (rate × share)⌉", () => {
    // step-01, p95: ⌈90 / 3⌉ = 30 s over all classes, ⌈90 / 1.5⌉ = 60 s per class; p99: ⌈153⌉ = 153, ⌈306⌉ = 306
    assert.deepEqual(l1!.percentiles.map((p) => [p.stage_s_all, p.stage_s_each_class]), [[30, 60], [153, 306]]);
    // step-02: ⌈90 / 6⌉ = 15, ⌈90 / 3⌉ = 30; ⌈459 / 6⌉ = ⌈76.5⌉ = 77, ⌈459 / 3⌉ = 153
    assert.deepEqual(l2!.percentiles.map((p) => [p.stage_s_all, p.stage_s_each_class]), [[15, 30], [77, 153]]);
    // step-03: ⌈90 / 12⌉ = 8, ⌈90 / 6⌉ = 15; ⌈459 / 12⌉ = ⌈38.25⌉ = 39, ⌈459 / 6⌉ = 77
    assert.deepEqual(l3!.percentiles.map((p) => [p.stage_s_all, p.stage_s_each_class]), [[8, 15], [39, 77]]);
  });
  await t.step("one warning line for the plan: the percentiles, at how many levels, the step that would do", () => {
    // p95: short at step-01 (over all classes) and step-02 (per class), met at step-03: 2 of 3 levels; the longest
    // step any level needs is step-01's, 30 s over all classes and 60 s per class. p99: short at 3 of 3; step-01's
    // 153 s and 306 s.
    assert.deepEqual(c.warnings, [
      "plan too short for the knee: p95 untestable at 2 of 3 levels (make steps ≥ 30 s over all classes, 60 s per " +
      "class), p99 at 3 of 3 (≥ 153 s, 306 s); each level: npx deno task plan --plan FILE",
    ]);
    // The plan file, when given, is named in the pointer to the detail.
    assert.match(planLengthCheck(sweep, TWO_EQUAL, { planFile: "p.json" }).warnings[0]!, /--plan p\.json$/);
  });
  await t.step("the detail: one line per short level, naming the stage, the n expected and needed, the length", () => {
    assert.equal(c.level_warnings.length, 3);
    assert.equal(
      c.level_warnings[0],
      "plan too short for the knee: stage step-01 (3 req/s for 20 s; the baseline every level is judged against): " +
        "expected n = 60 over all classes (chat 30, rag 30); p95 needs n ≥ 90: a step ≥ 30 s for the all-class " +
        "signals, 60 s for every class's; p99 needs n ≥ 459: a step ≥ 153 s for the all-class signals, 306 s for " +
        "every class's. The knee tests a percentile only with that n on each side and ≥ 5 one-second blocks " +
        `(MLPerf LoadGen's early-stopping rule at 99 % one-sided confidence); else its departure is "undecidable"`,
    );
    assert.match(
      c.level_warnings[1]!,
      /stage step-02 \(6 req\/s for 20 s\): expected n = 120 over all classes \(chat 60, /,
    );
    assert.match(
      c.level_warnings[1]!,
      /p95 needs n ≥ 90: met over all classes; every class's signals need a step ≥ 30 s;/,
    );
    assert.match(c.level_warnings[2]!, /p95 needs n ≥ 90: met; p99 needs n ≥ 459: a step ≥ 39 s for the all-class /);
  });
});

Deno.test("planLengthCheck() turns at the need: 90 arrivals support a p95, 89 do not", () => {
  const p95Short = (rps: number) =>
    planLengthCheck([stage("a", 0, 20, rps), stage("b", 20, 20, 100)], ONE).levels[0]!.percentiles[0]!.short;
  // 4.5 × 20 = 90 (p95 met); 4.45 × 20 = 89 (short by one)
  assert.deepEqual(p95Short(4.5), []);
  assert.deepEqual(p95Short(4.45), ["all", "qa"]);
  // 0.29 × 100 = 28.999999999999996 in floating point: 29 arrivals, not 28
  const c = planLengthCheck([stage("a", 0, 100, 0.29), stage("b", 100, 100, 1)], ONE);
  assert.equal(c.levels[0]!.expected[0]!.expected_n, 29);
});

Deno.test("a plan long enough for every percentile signal gets no warning", () => {
  // One class at 50 and 100 req/s for 10 s: 500 and 1000 arrivals ≥ 459, 10 ≥ 5 blocks.
  const c = planLengthCheck([stage("low", 0, 10, 50), stage("high", 10, 10, 100)], ONE);
  assert.deepEqual(c.levels.map((l) => l.too_short), [false, false]);
  assert.deepEqual([c.warnings, c.level_warnings], [[], []]);
});

Deno.test("repeats of a rate are one level; its length is shared among them", () => {
  // step-01 and step-01-r2: 3 req/s for 20 + 20 s = 120 arrivals, 60 per class.
  const stages = [stage("step-01", 0, 20, 3), stage("step-01-r2", 20, 20, 3), stage("step-02", 40, 20, 100)];
  const l = planLengthCheck(stages, TWO_EQUAL).levels[0]!;
  assert.deepEqual(l.stages, ["step-01", "step-01-r2"]);
  assert.equal(l.seconds, 40);
  assert.deepEqual(l.expected.map((e) => e.expected_n), [120, 60, 60]);
  // p95 per class: ⌈90 / 1.5⌉ = 60 level seconds, ⌈60 / 2⌉ = 30 s for each of the 2 stages
  assert.equal(l.percentiles[0]!.stage_s_each_class, 30);
  assert.match(
    planLengthCheck(stages, TWO_EQUAL).level_warnings[0]!,
    /^plan too short for the knee: stages step-01, step-01-r2 \(one level: 3 req\/s for 20 s \+ 20 s; the baseline .*every class's signals need each stage ≥ 30 s;/,
  );
});

Deno.test("TTFT over all classes counts only the streamed classes", () => {
  // chat (0.75) streams, batch (0.25) does not: at 10 req/s for 20 s, 200 over all, 150 streamed, 50 batch.
  const mix: MixShares = { classes: { chat: 0.75, batch: 0.25 }, streamed: (c) => c === "chat" };
  const l = planLengthCheck([stage("a", 0, 20, 10), stage("b", 20, 20, 100)], mix).levels[0]!;
  assert.deepEqual(
    l.expected.map((e) => [e.scope, e.expected_n]),
    [["all", 200], ["all streamed", 150], ["batch", 50], ["chat", 150]],
  );
  // p99 over all classes: the streamed share binds, ⌈459 / 7.5⌉ = ⌈61.2⌉ = 62 s; per class batch: ⌈459 / 2.5⌉ = 184 s
  assert.deepEqual([l.percentiles[1]!.stage_s_all, l.percentiles[1]!.stage_s_each_class], [62, 184]);
});

Deno.test("a level under 5 one-second blocks is short whatever its n", () => {
  // 100 and 200 req/s for 4 s: 400 and 800 arrivals ≥ 90, but 4 blocks < 5: the block bootstrap is not applied.
  const c = planLengthCheck([stage("a", 0, 4, 100), stage("b", 4, 4, 200)], ONE);
  assert.deepEqual(c.levels[0]!.percentiles[0]!.short, ["all", "qa"]);
  // ⌈90 / 100⌉ = 1 s, raised to the 5 s the blocks need
  assert.equal(c.levels[0]!.percentiles[0]!.stage_s_all, 5);
});

Deno.test("no knee, no check: warm-up, drain and recovery stages are not levels; one level is not a sweep", () => {
  const c = planLengthCheck([
    stage("warm", 0, 5, 1, "warmup"),
    stage("main", 5, 5, 1),
    stage("after", 10, 5, 1, "recovery"),
    stage("rest", 15, 5, 0, "drain"),
  ], ONE);
  assert.deepEqual([c.levels, c.warnings, c.level_warnings], [[], [], []]);
});

Deno.test("planLengthOf() takes the classes' chances from the plan's mix and streaming from class_defaults", () => {
  const workload = {
    workload: "w",
    version: "1",
    kind: "design" as const,
    description: "",
    does_not_represent: [],
    tokenizer: "o200k_base" as const,
    cases: [tinyCase({ case_id: "c1", class: "chat" }), tinyCase({ case_id: "r1", class: "rag" })],
  };
  const cls = { description: "", deadline_ms: 1, ttft_ms: 1, tpot_ms: 1, priority: 0 };
  const classDefaults = { workload: "w", classes: { chat: { ...cls, stream: true }, rag: { ...cls, stream: false } } };
  const c = planLengthOf(
    [stage("a", 0, 20, 10), stage("b", 20, 20, 20)],
    { workload, classDefaults },
    { class_weights: { chat: 3, rag: 1 } },
    "plan.json",
  );
  // chat 3 / 4 = 0.75 (streamed), rag 0.25: at 10 req/s × 20 s, 200 all, 150 streamed, 150 chat, 50 rag
  assert.deepEqual(
    c.levels[0]!.expected.map((e) => [e.scope, e.expected_n]),
    [["all", 200], ["all streamed", 150], ["chat", 150], ["rag", 50]],
  );
});

Deno.test("the plan's warning line: a percentile short only per class says so; one met everywhere is left out", () => {
  // One level pair at 10 and 20 req/s for 20 s, two equal classes: 200 and 400 arrivals over all, 100 and 200 per class.
  // p95 (90): met everywhere. p99 (459): short everywhere; over all classes ⌈459 / 10⌉ = 46 s, per class
  // ⌈459 / 5⌉ = 92 s (the 10 req/s baseline binds).
  const c = planLengthCheck([stage("a", 0, 20, 10), stage("b", 20, 20, 20)], TWO_EQUAL);
  assert.deepEqual(c.warnings, [
    "plan too short for the knee: p99 untestable at 2 of 2 levels (make steps ≥ 46 s over all classes, 92 s per " +
    "class); each level: npx deno task plan --plan FILE",
  ]);
  // At 50 and 100 req/s for 10 s: 500 ≥ 459 over all classes, 250 per class < 459 (the baseline); the 100 req/s
  // level has 500 per class. p99 per class only: ⌈459 / 25⌉ = ⌈18.36⌉ = 19 s.
  const d = planLengthCheck([stage("a", 0, 10, 50), stage("b", 10, 10, 100)], TWO_EQUAL);
  assert.deepEqual(d.warnings, [
    "plan too short for the knee: p99 untestable at 1 of 2 levels (make steps ≥ 19 s per class); each level: npx " +
    "deno task plan --plan FILE",
  ]);
});
