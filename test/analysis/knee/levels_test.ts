import assert from "node:assert/strict";
import { pointSignals, prepareRun } from "../../../analysis/knee/levels.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { answered, makeManifest, req, writeRun } from "../_fixture.ts";
import { SWEEP_POLICY, writeSweepRun } from "./knee_fixture.ts";

const quiet = { onWarning: () => {} };

Deno.test("pointSignals() measures every signal of a stage from the log and the server timeline", async (t) => {
  const dir = writeSweepRun(Deno.makeTempDirSync() + "/run");
  const run = prepareRun(await loadRun(dir, quiet), SWEEP_POLICY);
  const stage = (name: string) => ({ run, stage: run.stages.find((s) => s.name === name)! });

  await t.step("levels are the steady and burst stages: warm-up and drain are not", () => {
    assert.deepEqual(run.stages.map((s) => s.name), ["step-01", "step-02", "step-03", "step-04"]);
  });
  await t.step("step-03: counts, rates, unit cost, latency and queue", () => {
    const p = pointSignals([stage("step-03")]);
    assert.equal(p.offered, 160);
    assert.equal(p.offered_rps, 8); // 160 requests / 20 s
    assert.equal(p.accepted, 144); // every 10th of 160 rejected
    assert.equal(p.accepted_goodput, 7.2); // 144 / 20 s
    assert.deepEqual(p.signals.rejection_rate, { test: "proportion", value: 0.1, num: 16, den: 160 });
    assert.equal(p.signals.acceptance_rate!.value, 0.9);
    assert.equal(p.signals.error_rate!.value, 0);
    assert.equal(p.signals.retry_amplification!.value, 1); // one attempt per request
    // (144 ok × (10 + 20) tokens + 16 rejected × 10 input tokens) / 144 accepted = 4480 / 144
    assert.ok(Math.abs(p.signals.tokens_per_accepted!.value! - 4480 / 144) < 1e-9);
    assert.equal(p.signals["e2e_p95_ms@qa"]!.value, 500);
    assert.equal(p.signals["ttft_p99_ms@all"]!.value, 100);
    assert.equal(p.signals.server_wait_p95_ms!.value, 50); // ok: headers at +50; rejected: +5
    assert.equal(p.signals.server_queue_len_mean!.value, 1);
    assert.equal(p.signals.server_oldest_queued_max_ms!.value, 200);
    assert.equal(p.signals.schema_ok_rate, undefined, "a gate never evaluated has no signal");
    assert.equal(p.signals.quality_ok_rate!.value, 1);
  });
  await t.step("step-04: retries amplify calls; no accepted task leaves the unit cost undefined", () => {
    const p = pointSignals([stage("step-04")]);
    // 160 rejected × 3 attempts + 160 ok × 1 = 640 calls for 320 model calls
    assert.deepEqual(p.signals.retry_amplification, { test: "proportion", value: 2, num: 320, den: 640 });
    assert.equal(p.accepted, 0); // the ok half is late (e2e 2000 > 1000)
    assert.equal(p.signals.tokens_per_accepted!.value, null);
    assert.equal(p.signals["e2e_p95_ms@qa"]!.value, 2000);
    assert.equal(p.signals.server_queue_len_mean!.value, 10);
  });
  await t.step("an attempt held back by its route's limit made no call: it does not amplify", async () => {
    const held = prepareRun(
      await loadRun(writeSweepRun(Deno.makeTempDirSync() + "/run", { heldBack: true }), quiet),
      SWEEP_POLICY,
    );
    const p = pointSignals([{ run: held, stage: held.stages.find((s) => s.name === "step-04")! }]);
    // The 160 held-back rows are not calls: still 640 calls for 320 model calls (counted, they would give 800 / 320).
    assert.deepEqual(p.signals.retry_amplification, { test: "proportion", value: 2, num: 320, den: 640 });
  });
  await t.step("the unit cost's bootstrap interval holds the value and is the same every time", () => {
    const a = pointSignals([stage("step-02")]).signals.tokens_per_accepted!;
    const b = pointSignals([stage("step-02")]).signals.tokens_per_accepted!;
    assert.deepEqual(a, b);
    assert.equal(a.test, "bootstrap");
    if (a.test !== "bootstrap") return;
    assert.ok(a.lower! <= a.value! && a.value! <= a.upper!);
    assert.ok(a.upper! > a.lower!, "78 of 80 accepted: resampling moves the ratio");
  });
  await t.step("each sampled signal is kept in one-second blocks counted from the stage start", () => {
    const p = pointSignals([stage("step-03")]);
    const rej = p.blocks.rejection_rate!;
    assert.equal(rej.kind, "ratio");
    if (rej.kind !== "ratio") return;
    // 8 requests a second for 20 s; request i (at 50 000 + 125·i ms) is rejected when i % 10 = 0:
    // i = 0, 10, 20, 30 fall in seconds 0, 1, 2, 3 (i div 8), none in second 4 (i = 32–39), and so on.
    assert.equal(rej.at.length, 20);
    assert.deepEqual(rej.at.slice(0, 5), [0, 1, 2, 3, 4].map((second) => ({ part: 0, second })));
    assert.deepEqual([...rej.num], [1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0]);
    assert.deepEqual([...rej.den], Array(20).fill(8));
    const e2e = p.blocks["e2e_p95_ms@qa"]!;
    assert.equal(e2e.kind, "quantile");
    if (e2e.kind !== "quantile") return;
    // The 144 completed requests: 7 in each second holding a rejection, 8 in the others (16 × 7 + 4 × 8 = 144).
    assert.deepEqual(e2e.values.map((v) => v.length), [7, 7, 7, 7, 8, 7, 7, 7, 7, 8, 7, 7, 7, 7, 8, 7, 7, 7, 7, 8]);
    assert.equal(e2e.p, 0.95);
    assert.equal(p.blocks.server_queue_len_mean, undefined, "timeline signals have no test, so no blocks");
  });
  await t.step("pooling two stages sums counts and seconds; each stage's blocks stay its own", () => {
    const p = pointSignals([stage("step-01"), stage("step-02")]);
    assert.equal(p.offered, 120);
    assert.equal(p.seconds, 40);
    assert.equal(p.offered_rps, 3); // 120 / 40 s
    assert.deepEqual(p.parts.map((x) => [x.stage, x.start_ms, x.end_ms]), [
      ["step-01", 10_000, 30_000],
      ["step-02", 30_000, 50_000],
    ]);
    const acc = p.blocks.acceptance_rate!;
    // 20 seconds of each stage: parts 0 and 1, seconds 0–19 each.
    assert.deepEqual(acc.at.map((a) => a.part), [...Array(20).fill(0), ...Array(20).fill(1)]);
    assert.deepEqual(acc.at.map((a) => a.second), [...Array(20).keys(), ...Array(20).keys()]);
  });
});

Deno.test("pointSignals() has no server signals when the run has no timeline", async () => {
  const dir = writeSweepRun(Deno.makeTempDirSync() + "/run", { server: false });
  const run = prepareRun(await loadRun(dir, quiet), SWEEP_POLICY);
  const p = pointSignals([{ run, stage: run.stages[0]! }]);
  assert.equal(p.signals.server_queue_len_mean, undefined);
  assert.equal(p.signals.server_oldest_queued_max_ms, undefined);
});

Deno.test("prepareRun() refuses a run without a steady or burst stage", async () => {
  const dir = Deno.makeTempDirSync() + "/run";
  const manifest = makeManifest([{ name: "w", kind: "warmup", start_ms: 0, end_ms: 1000, offered_rps: 1 }]);
  // The workload defines the policy's class (no request of it was offered: the policy itself is valid).
  manifest.workload.classes = Object.keys(SWEEP_POLICY.classes);
  writeRun(dir, manifest, { requests: [], attempts: [] });
  const run = await loadRun(dir, quiet);
  assert.throws(
    () => prepareRun(run, SWEEP_POLICY),
    (e) => e instanceof InputError && /no steady or burst/.test(e.message),
  );
});

Deno.test("pointSignals() reports each level's cached input share from the requests' token counts", async () => {
  const stages = [
    { name: "low", kind: "steady" as const, start_ms: 0, end_ms: 4000, offered_rps: 1 },
    { name: "high", kind: "steady" as const, start_ms: 4000, end_ms: 6000, offered_rps: 2 },
  ];
  // low: 4 requests of 100 input tokens, 20 cached each; high: 4 of 100, 90 cached each, and one of 0 input (failed).
  const qa = { class: "qa", input_tokens: 100 };
  const requests = [
    ...[0, 1, 2, 3].map((i) =>
      answered({ ...qa, request_id: `l${i}`, stage: "low", scheduled_ms: i * 1000, cached_input_tokens: 20 }, 200)
    ),
    ...[0, 1, 2, 3].map((i) =>
      answered(
        { ...qa, request_id: `h${i}`, stage: "high", scheduled_ms: 4000 + i * 500, cached_input_tokens: 90 },
        200,
      )
    ),
  ];
  const failed = req({
    request_id: "h4",
    class: "qa",
    stage: "high",
    scheduled_ms: 5900,
    outcome: "timeout",
    input_tokens: 0,
  });
  const dir = writeRun(Deno.makeTempDirSync() + "/run", makeManifest(stages, { run_id: "fixture-run" }), {
    requests: [...requests.map((r) => r.request), failed],
    attempts: requests.map((r) => r.attempt),
  });
  const run = prepareRun(await loadRun(dir, quiet), SWEEP_POLICY);
  const at = (name: string) => pointSignals([{ run, stage: run.stages.find((s) => s.name === name)! }]).cached_input;
  // low: 4 × 20 / 4 × 100 = 80 / 400 = 0.2.
  assert.deepEqual(at("low"), { cached: 80, input: 400, share: 0.2 });
  // high: 4 × 90 / (4 × 100 + 0) = 360 / 400 = 0.9: the failed request adds no input token.
  assert.deepEqual(at("high"), { cached: 360, input: 400, share: 0.9 });
});

Deno.test("pointSignals() has no queue-age signal when the polled engine does not expose it", async () => {
  const target = {
    routes: ["default"],
    server: "http://127.0.0.1:8080/",
    source: "llamacpp" as const,
    how: "test",
    endpoints: ["/metrics"],
    columns: { queue_len: "llamacpp:requests_deferred", running: "llamacpp:requests_processing" },
    not_exposed: ["oldest_queued_ms", "replicas", "replicas_warming", "shed", "rate_limited", "errors"],
    polls: 95,
    failed_polls: 0,
    rows_dropped: 0,
    lines_dropped: 0,
  };
  const server_metrics = { mode: "auto" as const, period_ms: 1000, targets: [target], note: "test" };
  const dir = writeSweepRun(Deno.makeTempDirSync() + "/run", { manifest: { server_metrics } });
  const run = prepareRun(await loadRun(dir, quiet), SWEEP_POLICY);
  const p = pointSignals([{ run, stage: run.stages.find((s) => s.name === "step-03")! }]);
  assert.equal(p.signals.server_queue_len_mean!.value, 1, "the queue the engine exposes is a signal");
  assert.equal(p.signals.server_oldest_queued_max_ms, undefined, "its age, written 0 as not exposed, is not");
});
