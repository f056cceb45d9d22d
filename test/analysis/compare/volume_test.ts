import assert from "node:assert/strict";
import { costAtVolume } from "../../../analysis/compare/volume.ts";
import { type PlannedDemand, SECONDS_PER_MONTH } from "../../../analysis/compare/volume_demand.ts";
import type { RoutePart, VolumeMeasurement } from "../../../analysis/compare/volume_measure.ts";
import { formatVolume } from "../../../analysis/compare/format_volume.ts";
import { costVsDemandFigure } from "../../../analysis/plots/cost_vs_demand.ts";

const close = (a: number, b: number, tol = 1e-9) =>
  assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} ≠ ${b}`);

function part(over: Partial<RoutePart> & Pick<RoutePart, "route" | "kind">): RoutePart {
  return {
    attempts: 100,
    attempt_share: 1,
    stated_share: null,
    attempts_per_offered: 1,
    counted_attempts_per_offered: 1,
    tokens_per_offered: 0,
    self_hosted: null,
    hosted: null,
    ...over,
  };
}

/**
 * Self-hosted: 1000 offered, 900 accepted (acceptance 0.9); knee 8 req/s, headroom 0.25 → limit 6 req/s; acceptance
 * at the knee 0.9 → 5.4 accepted/s on 2 replicas = 2.7 per replica. 2 GPUs per replica at 2 per GPU-hour, 1 spare in
 * the sheet, operations 0.5 per hour; review 0.01 per offered request; 1 per hour of allocated operations.
 */
function selfHosted(over: Partial<VolumeMeasurement> = {}): VolumeMeasurement {
  return {
    run_id: "s",
    route: "selfhosted",
    kind: "self_hosted",
    policy_kind: "single",
    currency: "USD",
    window: "steady stages",
    offered: 1000,
    accepted: 900,
    acceptance: 0.9,
    highest_offered_rps: 16,
    highest_level_rps: 16,
    knee_rps: 8,
    headroom: 0.25,
    limit_rps: 6,
    knee_acceptance: 0.9,
    limit_accepted_rps: 5.4,
    limit_basis: "knee",
    variable: [{ item: "human_review", route: null, failed_charged: false, per_offered: 0.01 }],
    hourly: [{ detail: "shared operations", per_hour: 1 }],
    parts: [part({
      route: "selfhosted",
      kind: "self_hosted",
      self_hosted: {
        price: { gpu_type: "G", gpu_hour: 2, gpus_per_replica: 2, redundancy_replicas: 1, operations_per_hour: 0.5 },
        measured_replicas: 2,
        replicas_from: "server timeline",
      },
    })],
    ...over,
  };
}

/**
 * Hosted: 1000 offered, 800 accepted (acceptance 0.8), highest offered rate 14 req/s; 1.25 counted attempts and 2000
 * tokens per offered request; quota stated 600 req/min and 1 000 000 tok/min; per offered request 0.002 first
 * attempts, 0.0005 retries, 0.0001 failed calls charged.
 */
function hosted(over: Partial<VolumeMeasurement> = {}): VolumeMeasurement {
  return {
    ...selfHosted(),
    run_id: "h",
    route: "hosted",
    kind: "hosted",
    accepted: 800,
    acceptance: 0.8,
    highest_offered_rps: 14,
    highest_level_rps: 14,
    knee_rps: 9,
    limit_rps: 7.2,
    knee_acceptance: 0.8,
    limit_accepted_rps: 5.76,
    variable: [
      { item: "provider_or_gpu", route: "hosted", failed_charged: false, per_offered: 0.002 },
      { item: "retries", route: "hosted", failed_charged: false, per_offered: 0.0005 },
      { item: "retries", route: "hosted", failed_charged: true, per_offered: 0.0001 },
    ],
    hourly: [],
    parts: [part({
      route: "hosted",
      kind: "hosted",
      counted_attempts_per_offered: 1.25,
      tokens_per_offered: 2000,
      hosted: { stated_requests: 600, stated_tokens: 1e6, attempts_stating: 100, varied: false },
    })],
    ...over,
  };
}

const demand = (over: Partial<PlannedDemand> = {}): PlannedDemand => ({
  peak_accepted_rps: 8,
  monthly_accepted: 1e7,
  profile: null,
  monthly_from: "--monthly",
  redundancy: null,
  extrapolate: false,
  ...over,
});

Deno.test("costAtVolume() sizes self-hosted replicas from the limit per replica, plus the redundancy", async (t) => {
  await t.step("replicas, GPU cost, operations and per-request costs a month", () => {
    const r = costAtVolume([selfHosted(), hosted()], demand()).routes[0]!;
    const s = r.self_hosted[0]!;
    close(s.per_replica_accepted_rps, 2.7); // 6 req/s × 0.9 / 2 replicas
    assert.equal(s.replicas_for_demand, 3); // ceil(8 / 2.7) = ceil(2.963)
    assert.equal(s.redundancy, 1);
    assert.equal(s.redundancy_from, "price sheet redundancy_replicas");
    assert.equal(s.replicas, 4);
    assert.equal(s.gpus, 8);
    close(s.gpu_monthly, 11_680); // 4 replicas × 2 GPUs × 2 × 730 h
    close(s.operations_monthly, 365); // 0.5 × 730
    close(r.monthly.hourly, 730); // 1 × 730
    close(r.offered_monthly, 1e7 / 0.9);
    close(r.monthly.variable_total, 0.01 * 1e7 / 0.9); // 111 111.11
    close(r.monthly.total, 11_680 + 365 + 730 + 0.01 * 1e7 / 0.9);
    close(r.cost_per_accepted_task, (11_680 + 365 + 730 + 0.01 * 1e7 / 0.9) / 1e7);
  });
  await t.step("--redundancy replaces the sheet's spares", () => {
    const s = costAtVolume([selfHosted(), hosted()], demand({ redundancy: 0 })).routes[0]!.self_hosted[0]!;
    assert.equal(s.replicas, 3);
    assert.equal(s.redundancy_from, "--redundancy");
  });
  await t.step("a replica count exactly at a multiple of the limit takes no extra replica", () => {
    const s = costAtVolume([selfHosted(), hosted()], demand({ peak_accepted_rps: 5.4 })).routes[0]!.self_hosted[0]!;
    assert.equal(s.replicas_for_demand, 2); // 5.4 / 2.7 = 2 (a float quotient of 2.0000000000000004 must not give 3)
    assert.equal(s.extrapolated, false); // 2 ≤ 2 measured
  });
});

Deno.test("costAtVolume() gives the idle time across the day", async (t) => {
  await t.step("flat at the monthly average without a profile", () => {
    const s = costAtVolume([selfHosted(), hosted()], demand()).routes[0]!.self_hosted[0]!;
    // average 1e7 / 2 628 000 s = 3.805 tasks/s; used = 24 h × 3.805 / 2.7 = 33.82 of 4 × 24 = 96 replica-hours
    const used = 24 * (1e7 / SECONDS_PER_MONTH) / 2.7;
    close(s.idle.used_replica_hours_per_day, used);
    assert.equal(s.idle.provisioned_replica_hours_per_day, 96);
    close(s.idle.idle_share, 1 - used / 96);
    close(s.idle.peak_utilisation, 8 / (4 * 2.7));
  });
  await t.step("hour by hour with a profile", () => {
    const profile = [...Array(12).fill(1), ...Array(12).fill(0.5)];
    const monthly = 8 * 3600 * 18 * 730 / 24; // Σ fractions = 18
    const s = costAtVolume(
      [selfHosted(), hosted()],
      demand({ profile, monthly_accepted: monthly, monthly_from: "--profile" }),
    ).routes[0]!.self_hosted[0]!;
    close(s.idle.used_replica_hours_per_day, (12 * 8 + 12 * 4) / 2.7); // 53.33
    close(s.idle.idle_share, 1 - (144 / 2.7) / 96); // 0.4444
  });
});

Deno.test("costAtVolume() costs a hosted route at volume with its quota", async (t) => {
  await t.step("spend with retries and failed calls, quota needed and whether the stated one covers it", () => {
    const r = costAtVolume([selfHosted(), hosted()], demand()).routes[1]!;
    close(r.offered_peak_rps, 10); // 8 / 0.8
    close(r.offered_monthly, 1.25e7); // 1e7 / 0.8
    close(r.monthly.total, 0.0026 * 1.25e7); // (0.002 + 0.0005 + 0.0001) × 12.5 M = 32 500
    assert.deepEqual(r.monthly.variable.map((v) => v.label), [
      "provider_or_gpu hosted",
      "retries hosted",
      "retries (failed calls charged) hosted",
    ]);
    const h = r.hosted[0]!;
    close(h.requests_per_min, 750); // 10 req/s × 1.25 attempts × 60
    close(h.tokens_per_min, 1.2e6); // 10 × 2000 × 60
    assert.equal(h.covers_requests, false); // 750 > 600 stated
    assert.equal(h.covers_tokens, false); // 1.2 M > 1 M stated
    assert.equal(r.extrapolated, false); // 10 req/s offered ≤ 14 measured
  });
  await t.step("a quota that was not stated is not judged", () => {
    const h = costAtVolume(
      [selfHosted(), hosted({ parts: [{ ...hosted().parts[0]!, hosted: null }] })],
      demand(),
    ).routes[1]!.hosted;
    assert.deepEqual(h, []);
    const unstated = hosted();
    unstated.parts[0]!.hosted = { stated_requests: null, stated_tokens: null, attempts_stating: 0, varied: false };
    const q = costAtVolume([selfHosted(), unstated], demand()).routes[1]!.hosted[0]!;
    assert.equal(q.covers_requests, null);
    assert.equal(q.covers_tokens, null);
  });
});

Deno.test("costAtVolume() says when the answer is an extrapolation, and refuses one for every route", async (t) => {
  await t.step("each route's reason, from what", () => {
    const v = costAtVolume([selfHosted(), hosted()], demand({ peak_accepted_rps: 12, extrapolate: true }));
    const [s, h] = v.routes;
    assert.equal(s!.extrapolated, true); // ceil(12 / 2.7) = 5 replicas > 2 measured
    assert.match(s!.extrapolation[0]!, /5 replicas needed at 2\.7 accepted\/s each, measured on 2/);
    assert.equal(h!.extrapolated, true); // 12 / 0.8 = 15 req/s offered > 14 measured
    assert.match(h!.extrapolation[0]!, /offered peak 15 req\/s .* above the highest offered rate measured, 14 req\/s/);
    close(h!.reach_accepted_rps, 14 * 0.8);
    close(s!.reach_accepted_rps, 2 * 2.7);
  });
  await t.step("without --extrapolate a demand above every route's capacity is refused naming --demand", () => {
    assert.throws(() => costAtVolume([selfHosted(), hosted()], demand({ peak_accepted_rps: 12 })), (e: Error) => {
      assert.equal(e.name, "InputError");
      assert.match(e.message, /--demand 12\/s is above every route's measured capacity; pass --extrapolate/);
      return true;
    });
  });
  await t.step("one route within its measurement is enough", () => {
    const v = costAtVolume([selfHosted(), hosted()], demand({ peak_accepted_rps: 8 }));
    assert.deepEqual(v.routes.map((r) => r.extrapolated), [true, false]);
    assert.ok(
      formatVolume(v).some((l) =>
        l.startsWith("  EXTRAPOLATION: 3 replicas needed at 2.7 accepted/s each, measured on 2")
      ),
    );
  });
});

Deno.test("costAtVolume() splits a hybrid route by its measured attempts", async (t) => {
  const hybrid = (): VolumeMeasurement => ({
    ...hosted(),
    run_id: "y",
    route: "hybrid",
    kind: "hybrid",
    policy_kind: "fallback",
    acceptance: 0.8,
    highest_offered_rps: 14,
    limit_accepted_rps: 8,
    parts: [
      { ...selfHosted().parts[0]!, attempt_share: 0.75 },
      { ...hosted().parts[0]!, attempt_share: 0.25, counted_attempts_per_offered: 0.3, tokens_per_offered: 500 },
    ],
  });
  await t.step("the self-hosted part sized at the route's own run's limit per replica", () => {
    const r = costAtVolume([selfHosted(), hosted(), hybrid()], demand()).routes[2]!;
    const s = r.self_hosted[0]!;
    close(s.peak_accepted_rps, 6); // 8 × 0.75
    close(s.per_replica_accepted_rps, 2.7); // from run s
    assert.match(s.per_replica_from, /^run s:/);
    assert.equal(s.replicas, 4); // ceil(6 / 2.7) = 3, + 1 spare
    const h = r.hosted[0]!;
    close(h.requests_per_min, 10 * 0.3 * 60); // offered peak 10 req/s × 0.3 attempts × 60 = 180
    close(h.tokens_per_min, 10 * 500 * 60);
    // GPUs 4 × 2 × 2 × 730 + operations 365 + per request 0.0026 × 12.5 M
    close(r.monthly.total, 11_680 + 365 + 0.0026 * 1.25e7);
  });
  await t.step("without that run, from its own limit × the part's share", () => {
    const s = costAtVolume([hosted(), hybrid()], demand()).routes[1]!.self_hosted[0]!;
    close(s.per_replica_accepted_rps, 8 * 0.75 / 2); // 3
    assert.equal(s.replicas_for_demand, 2); // 6 / 3
  });
});

Deno.test("costAtVolume() finds where the routes' monthly costs cross", () => {
  // self: 1 GPU at 1 per hour per replica, no spare, 2 tasks/s per replica: 730 × ceil(x / 2) a month, nothing else.
  // hosted: 500 × x a month (acceptance 1; per offered 500 / 2 628 000 with the month's volume x × 2 628 000).
  const self = selfHosted({
    acceptance: 1,
    limit_accepted_rps: 4,
    variable: [],
    hourly: [],
    parts: [part({
      route: "selfhosted",
      kind: "self_hosted",
      self_hosted: {
        price: { gpu_type: "G", gpu_hour: 1, gpus_per_replica: 1, redundancy_replicas: 0, operations_per_hour: 0 },
        measured_replicas: 2,
        replicas_from: "t",
      },
    })],
  });
  const host = hosted({
    acceptance: 1,
    highest_offered_rps: 100,
    variable: [{
      item: "provider_or_gpu",
      route: "hosted",
      failed_charged: false,
      per_offered: 500 / SECONDS_PER_MONTH,
    }],
  });
  const v = costAtVolume([self, host], demand({ peak_accepted_rps: 4, monthly_accepted: 4 * SECONDS_PER_MONTH }));
  // 0..8: self 730, 1460, 2190, 2920 on (0,2], (2,4], (4,6], (6,8]; hosted 500 x.
  // 500 x = 730 at 1.46 (self cheaper above); the step at 2 (1460 > 1000: hosted); 500 x = 1460 at 2.92; the step
  // at 4 (2190 > 2000); 500 x = 2190 at 4.38; at 6, 2920 < 3000: no flip.
  const got = v.crossings.map((c) => [c.cheaper_below, c.cheaper_above, c.at_step] as const);
  assert.deepEqual(got, [
    ["hosted", "selfhosted", false],
    ["selfhosted", "hosted", true],
    ["hosted", "selfhosted", false],
    ["selfhosted", "hosted", true],
    ["hosted", "selfhosted", false],
  ]);
  [1.46, 2, 2.92, 4, 4.38].forEach((x, i) => close(v.crossings[i]!.demand_rps, x, 1e-6));
  close(v.crossings[0]!.monthly.hosted!, 730, 1e-6);
  // The curve: 0 to 2 × the peak, both sides of each step.
  assert.equal(v.curve.demand_rps[0], 0);
  assert.equal(v.curve.demand_rps.at(-1), 8);
  const f = costVsDemandFigure(v);
  const marks = f.data.find((d) => d.name === "crossings")!;
  assert.equal((marks.x as number[]).length, 5);
  assert.match(
    f.disclosure,
    /accepted\/offered measured: selfhosted 900\/1000, hosted 800\/1000; window steady stages$/,
  );
  const text = formatVolume(v);
  assert.ok(text.includes("crossings (0 to 8 tasks/s; where the cheaper of two routes changes):"));
  assert.ok(text.includes(
    "  hosted vs selfhosted: selfhosted cheaper from 1.46, hosted cheaper from 2 (replica step), selfhosted cheaper " +
      "from 2.92, hosted cheaper from 4 (replica step), selfhosted cheaper from 4.38",
  ));
});

Deno.test("costAtVolume() refuses routes priced in different currencies", () => {
  assert.throws(() => costAtVolume([selfHosted(), hosted({ currency: "EUR" })], demand()), /different currencies/);
});
