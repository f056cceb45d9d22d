import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LedgerLine } from "../../../analysis/cost/price_lines.ts";
import { ledgerWaterfall } from "../../../analysis/compare/route_costs.ts";
import { COLUMNS } from "../../../schema/events.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { GPU_POLICY, selfSheet, writeGpuRun } from "./ledger_fixture.ts";

const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);

const amount = (lines: LedgerLine[], detail: RegExp) => {
  const hit = lines.filter((l) => l.route === "hosted" && detail.test(l.detail));
  assert.equal(hit.length, 1, `one line ${detail}, got ${hit.length}: ${lines.map((l) => l.detail).join(" | ")}`);
  return hit[0]!;
};

/*
 * The hand-worked self-hosted run (ledger_fixture.ts GPU_ROWS): route hosted is self-hosted at 2 GPUs per replica
 * × 3.6 per GPU-hour = 0.002 per replica-second; 1 spare replica; operations 7.2 / h = 0.002 per second.
 * The run lasts 26 s (run.json result.ended_ms); the window is the steady stage, 10–20 s; outside every measured stage:
 * warm 0–10 s, drain 20–25 s and the tail 25–26 s = 16 s. Each row covers 1 s.
 *
 * replica-seconds                       busy = min(running, replicas)   idle = max(replicas − running, 0)   warming
 * window  (t 10–19: running 0 1 3 1 1 0 2 0 0 0, replicas 2)   0+1+2+1+1+0+2+0+0+0 = 7   2+1+0+1+1+2+0+2+2+2 = 13   t 12, 13: 2
 * outside (warm t 1–9, drain t 20–25, tail t 26)                t 5 + t 20 = 2             4 + 11 + 1 = 16            t 1–4: 4
 *
 * gpu_time "run" (the default), the ledger's window is every measured stage, so share = 10 / 10 = 1:
 *   window   busy 7 × 0.002 = 0.014, idle 13 × 0.002 = 0.026, warming 2 × 0.002 = 0.004
 *   outside  busy 2 × 0.002 = 0.004, idle 16 × 0.002 = 0.032, warming 4 × 0.002 = 0.008      GPU time 44 × 0.002 = 0.088
 *   redundancy 1 spare × (10 + 1 × 16) s × 0.002 = 0.052; operations 0.002 × 26 s = 0.052
 * Backup's 9 replicas a second are not route hosted's. h1's fallback on hosted-priced backup: 0.003 (retries).
 */
Deno.test("ledger() charges a self-hosted route for the whole run: warm-up, drain, tail, idle and warming replicas", async (t) => {
  assert.ok((COLUMNS.server as readonly string[]).includes("running"), "the server table has running");
  const run = await loadRun(writeGpuRun(), { onWarning: () => {} });
  const r = ledger(run, GPU_POLICY, selfSheet());

  await t.step("each line by hand", () => {
    const gpu = (place: string, state: string) => amount(r.lines, new RegExp(`^GPU time ${place}, ${state} `));
    close(gpu("in the window", "busy").amount, 0.014, "window busy");
    close(gpu("in the window", "busy").quantity, 14 / 3600, "window busy GPU-hours (7 replica-s × 2 GPUs)");
    close(gpu("in the window", "idle").amount, 0.026, "window idle");
    close(gpu("in the window", "warming").amount, 0.004, "window warming");
    close(gpu("outside every measured stage", "busy").amount, 0.004, "outside busy");
    close(gpu("outside every measured stage", "idle").amount, 0.032, "outside idle");
    close(gpu("outside every measured stage", "warming").amount, 0.008, "outside warming");
    assert.match(gpu("outside every measured stage", "idle").detail, /share 1 \(window 10 s of 10 measured s\)/);
    close(amount(r.lines, /^redundancy/).amount, 0.052, "redundancy over 26 s");
    close(amount(r.lines, /^deployment operations/).amount, 0.052, "operations over 26 s");
    // provider_or_gpu = 0.088 + 0.052 = 0.14; retries = the fallback's 0.003.
    close(r.overall.cost.provider_or_gpu, 0.14, "GPU + redundancy");
    close(r.overall.cost.retries, 0.003, "fallback");
  });

  await t.step("the idle share is its own line, inside the window and outside it", () => {
    const idle = r.lines.filter((l) => /, idle \(/.test(l.detail)).reduce((s, l) => s + l.amount, 0);
    // 0.026 + 0.032 = 0.058 of the 0.088 GPU time.
    close(idle, 0.058, "idle");
  });

  await t.step("the disclosure: the run's span, the outside time and its parts, the share, replica-seconds", () => {
    assert.deepEqual(r.gpu_time, [{
      route: "hosted",
      gpu_time: "run",
      basis: "server timeline",
      run_end_ms: 26_000,
      run_end_from: "run.json result.ended_ms",
      window_seconds: 10,
      measured_seconds: 10,
      outside_seconds: 16,
      share: 1,
      outside_parts: ["warm (warmup)", "drain (drain)", "after the last stage"],
      replica_seconds: { window: { busy: 7, idle: 13, warming: 2 }, outside: { busy: 2, idle: 16, warming: 4 } },
    }]);
    assert.ok(r.pricing.rules.some((s) => /gpu_time "run", the default\): paid from the run's start/.test(s)));
    assert.deepEqual(r.pricing.warnings, []);
    // The report's cost waterfall carries the rule too.
    assert.match(
      ledgerWaterfall(r).disclosure,
      /; hosted: GPU time of the whole 26 s run, 16 s outside the measured stages × share 1$/,
    );
  });

  await t.step("fixed costs are spread by tokens on the route", () => {
    // Tokens on hosted in the window: a1 1500 + a2 2400 + a3 800 + a4 900 + a5 600 + h1 700 = 6900; a4 (class other)
    // carries 900/6900 of the 0.14 and of the 0.052 operations.
    const other = r.by_class.find((c) => c.class === "other")!;
    close(other.cost.provider_or_gpu, 0.14 * 900 / 6900, "other's GPU share");
    close(other.cost.allocated_operations, 0.052 * 900 / 6900, "other's operations share");
  });

  await t.step('gpu_time "window": only the window\'s rows are charged; the outside share is listed at 0', () => {
    const w = ledger(run, GPU_POLICY, selfSheet({ gpu_time: "window" }));
    const out = amount(w.lines, /^GPU time outside every measured stage, idle /);
    // Same quantity (16 replica-s × 2 GPUs = 32 GPU-s), price 0.
    assert.deepEqual([out.unit_price, out.amount], [0, 0]);
    close(out.quantity, 32 / 3600, "listed quantity");
    assert.match(out.detail, /not charged \(gpu_time: window\)/);
    // 0.014 + 0.026 + 0.004 = 0.044; redundancy 1 × 10 s × 0.002 = 0.02 → 0.064; operations 0.002 × 10 = 0.02.
    close(w.overall.cost.provider_or_gpu, 0.064, "window only");
    close(amount(w.lines, /^deployment operations/).amount, 0.02, "operations over the window");
    assert.equal(w.gpu_time[0]!.gpu_time, "window");
  });

  await t.step("a timeline that covers less than the run is warned about", () => {
    const short = ledger({ ...run, server: run.server!.filter(pl.col("t_ms").lt(15_000)) }, GPU_POLICY, selfSheet());
    // Rows t = 1..14 s of route hosted: 14 s of the 26 s run.
    assert.ok(
      short.pricing.warnings.some((w) => /route hosted: the server timeline covers 14\.0 s of the run's 26 s/.test(w)),
      short.pricing.warnings.join(),
    );
  });

  await t.step("without a timeline: fixed_replicas over the whole run, else an input error", () => {
    const bare = { ...run, server: null };
    assert.throws(() => ledger(bare, GPU_POLICY, selfSheet()), /fixed_replicas/);
    const f = ledger(bare, GPU_POLICY, selfSheet({ fixed_replicas: 3 }));
    // 3 replicas × 10 s = 30 replica-s × 0.002 = 0.06 in the window; 3 × 16 s × share 1 = 48 × 0.002 = 0.096 outside.
    close(amount(f.lines, /^GPU time in the window: fixed_replicas 3/).amount, 0.06, "fixed, window");
    close(amount(f.lines, /^GPU time outside every measured stage: fixed_replicas 3/).amount, 0.096, "fixed, outside");
    assert.ok(f.pricing.warnings.some((w) => /fixed_replicas = 3 over the run/.test(w)));
    assert.equal(f.gpu_time[0]!.basis, "fixed_replicas");
    assert.equal(f.gpu_time[0]!.replica_seconds, null);
  });

  await t.step("a timeline from an engine that does not expose replicas: fixed_replicas, not 0 replicas", async () => {
    // The same rows, but run.json says route hosted's server is a llama.cpp engine whose `replicas` is "not exposed"
    // (0 in every row, meaning unknown): priced as if there were no timeline.
    const dir = writeGpuRun();
    const manifest = JSON.parse(Deno.readTextFileSync(`${dir}/run.json`));
    manifest.server_metrics = {
      mode: "auto",
      period_ms: 1000,
      note: "fixture",
      targets: [{
        routes: ["hosted"],
        server: "http://127.0.0.1:8788",
        source: "llamacpp",
        how: "fixture",
        endpoints: ["/metrics", "/slots"],
        columns: {},
        not_exposed: ["oldest_queued_ms", "replicas", "replicas_warming"],
        polls: 26,
        failed_polls: 0,
        rows_dropped: 0,
        lines_dropped: 0,
      }],
    };
    Deno.writeTextFileSync(`${dir}/run.json`, JSON.stringify(manifest));
    const engine = await loadRun(dir, { onWarning: () => {} });
    assert.throws(
      () => ledger(engine, GPU_POLICY, selfSheet()),
      /route hosted is priced self-hosted but its server timeline \(llamacpp\) does not expose replicas; set fixed_replicas/,
    );
    const f = ledger(engine, GPU_POLICY, selfSheet({ fixed_replicas: 3 }));
    // As without a timeline: 3 × 10 s × 0.002 = 0.06 in the window; 3 × 16 s × share 1 × 0.002 = 0.096 outside.
    close(amount(f.lines, /^GPU time in the window: fixed_replicas 3 \(its server timeline/).amount, 0.06, "window");
    close(amount(f.lines, /^GPU time outside every measured stage: fixed_replicas 3/).amount, 0.096, "outside");
    assert.ok(
      f.pricing.warnings.some((w) =>
        w === "route hosted: its server timeline (llamacpp) does not expose replicas; priced at fixed_replicas = 3 " +
            "over the run"
      ),
      f.pricing.warnings.join(" | "),
    );
    assert.equal(f.gpu_time[0]!.basis, "fixed_replicas");
  });
});

Deno.test("windows that split the measured stages are charged their seconds' share and add up to the run", async () => {
  const run = await loadRun(writeGpuRun(), { onWarning: () => {} });
  const measured: SloPolicy["window"] = { include_stages: ["steady"], exclude_stage_kinds: [] };
  const part = (a: number, b: number) =>
    ledger(run, { ...GPU_POLICY, window: { start_ms: a, end_ms: b } }, selfSheet(), { measured });
  const first = part(10_000, 15_000), second = part(15_000, 20_000);
  // First half: window rows t 10–14: busy 0+1+2+1+1 = 5, idle 2+1+0+1+1 = 5, warming 2; share 5 / 10 = 0.5 of the
  // outside 2 / 16 / 4 → 1 / 8 / 2. GPU: (5 + 5 + 2 + 1 + 8 + 2) = 23 replica-s × 0.002 = 0.046.
  assert.equal(first.gpu_time[0]!.share, 0.5);
  const gpuOf = (x: typeof first) =>
    x.lines.filter((l) => /^GPU time/.test(l.detail)).reduce((s, l) => s + l.amount, 0);
  close(gpuOf(first), 0.046, "first half");
  // Second half: t 15–19: busy 0+2+0+0+0 = 2, idle 2+0+2+2+2 = 8, warming 0; + 1 / 8 / 2 → 21 × 0.002 = 0.042.
  close(gpuOf(second), 0.042, "second half");
  // 0.046 + 0.042 = 0.088, the whole run's GPU time; spares 1 × (5 + 0.5 × 16) = 13 s × 0.002 = 0.026 each → 0.052.
  close(gpuOf(first) + gpuOf(second), gpuOf(ledger(run, GPU_POLICY, selfSheet())), "halves add up to the run");
  close(amount(first.lines, /^redundancy/).amount, 0.026, "spares, one half");
});
