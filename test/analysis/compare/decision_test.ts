import assert from "node:assert/strict";
import { decision, type DecisionResult } from "../../../analysis/compare/decision.ts";
import { formatDecision } from "../../../analysis/compare/format_decision.ts";
import { decisionOptions, parseResampleFlag } from "../../../analysis/compare/decision_flags.ts";
import { levelRows } from "../../../analysis/compare/decision_level.ts";
import { requestCosts } from "../../../analysis/cost/request_costs.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { limitFromKnee } from "../../../analysis/knee/limit.ts";
import { InputError } from "../../../schema/errors.ts";
import { mulberry32 } from "../../../lib/prng.ts";
import { normalQuantile } from "../../../lib/normal_quantile.ts";
import { SWEEP_OVERHEADS, SWEEP_POLICY, SWEEP_STAGES } from "../knee/knee_fixture.ts";
import { DECISION_PRICES, sweepRoute } from "./decision_fixture.ts";

const close = (actual: number | null, expected: number, what: string, tol = 1e-12) =>
  assert.ok(
    actual !== null && Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} ≠ ${expected}`,
  );

const OPTS = { prices: DECISION_PRICES, overheads: SWEEP_OVERHEADS };

// The three sweeps differ only in step-03 (8 req/s, 160 requests): every 10th (a), 4th (b) or 11th (c) rejected.
// Step-04's 160 answered requests are all late; 2 of step-02's 80 are rejected; nothing else fails.
const [a, b, c] = await Promise.all([sweepRoute("a", 10), sweepRoute("b", 4), sweepRoute("c", 11)]);

const route = (r: DecisionResult, name: string) => r.routes.find((x) => x.route === name)!;

Deno.test("decision(): the ledger's cost per accepted task and the knee's goodput at the limit, by hand", async (t) => {
  const r = decision([a, b, c], SWEEP_POLICY, { ...OPTS, resamples: 200 });

  await t.step("cost per accepted task: whole ledger / accepted tasks", () => {
    // a: answered 40 + 78 + 144 + 160 = 422 × 0.021 = 8.862; observability 600 sent × 0.001 = 0.6; review
    // 0.1 × 3 min × 0.2/h = 0.001 per accepted task × 262 = 0.262; operations 1.8/h × 80 s = 0.04 (fixed).
    // Total 9.764 over 40 + 78 + 144 = 262 accepted.
    close(route(r, "a").cost.total, 9.764, "a total");
    close(route(r, "a").cost.fixed, 0.04, "a fixed");
    close(route(r, "a").cost.variable, 9.724, "a variable");
    close(route(r, "a").cost_per_accepted.point, 9.764 / 262, "a cost/accepted");
    // b: 40 of 160 rejected in step-03: answered 398 × 0.021 = 8.358 + 0.6 + 238 × 0.001 + 0.04 = 9.236 over 238.
    close(route(r, "b").cost_per_accepted.point, 9.236 / 238, "b cost/accepted");
    // c: 15 rejected (0, 11, …, 154): answered 423 × 0.021 = 8.883 + 0.6 + 0.263 + 0.04 = 9.786 over 263.
    close(route(r, "c").cost_per_accepted.point, 9.786 / 263, "c cost/accepted");
  });

  await t.step("ranked cheapest first: c (0.037209), a (0.037267), b (0.038807)", () => {
    assert.deepEqual([route(r, "c").cost_rank, route(r, "a").cost_rank, route(r, "b").cost_rank], [1, 2, 3]);
    assert.deepEqual(r.cost_differences.map((d) => [d.route, d.versus]), [["a", "run-c"], ["b", "run-c"]]);
    close(r.cost_differences[0]!.point, 9.764 / 262 - 9.786 / 263, "a − c");
  });

  await t.step("goodput at the limit: no headroom given, the knee's level (8 req/s), accepted / 20 s", () => {
    for (const [name, accepted] of [["a", 144], ["b", 120], ["c", 145]] as const) {
      const g = route(r, name).goodput_at_limit;
      assert.equal(g.at.basis, "knee", name);
      assert.equal(g.at.level?.planned_rps, 8, name);
      close(g.point, accepted / 20, `${name} goodput`);
      // The requests resampled for it are the ones the knee counted.
      const run = { a, b, c }[name];
      assert.equal(levelRows(run, SWEEP_POLICY, g.at.level!).request_id.length, accepted, `${name} level rows`);
    }
    assert.deepEqual([route(r, "c").goodput_rank, route(r, "a").goodput_rank, route(r, "b").goodput_rank], [1, 2, 3]);
    assert.match(r.headroom, /cheapest route \(c\) is also the one with the most accepted goodput/);
  });

  await t.step("with a headroom: the highest level at or below knee × (1 − h)", () => {
    // 8 × (1 − 0.5) = 4: step-02, 78 accepted / 20 s for every route.
    const h = decision([a, b], SWEEP_POLICY, { ...OPTS, resamples: 100, headroom: 0.5 });
    for (const x of h.routes) {
      assert.equal(x.goodput_at_limit.at.basis, "limit");
      assert.equal(x.goodput_at_limit.at.rate_rps, 4);
      close(x.goodput_at_limit.point, 78 / 20, "goodput at 4 req/s");
    }
  });
});

Deno.test("decision(): the verdict on both sides of the 'not distinguishable' rule", async (t) => {
  await t.step(
    "a and c differ by one request in 600: not distinguishable, with the requests that would separate them",
    () => {
      const r = decision([a, c], SWEEP_POLICY, { ...OPTS, resamples: 1000 });
      const d = r.cost_differences[0]!;
      assert.ok(d.lo! <= 0 && d.hi! >= 0, `interval [${d.lo}, ${d.hi}] contains 0`);
      assert.equal(d.distinguishable, false);
      assert.equal(r.verdict.kind, "not_distinguishable");
      assert.deepEqual(r.verdict.tied, ["run-a"]);
      // n_needed = n × (z · sd / d)², z = Φ⁻¹(0.975); n = 600 requests in the window.
      assert.equal(d.n, 600);
      close(d.n_needed, 600 * (normalQuantile(0.975) * d.sd! / d.point!) ** 2, "n_needed");
      assert.equal(d.more_requests, Math.ceil(d.n_needed!) - 600);
      assert.ok(d.more_requests! > 0);
      assert.match(
        r.verdict.text,
        /^verdict: not distinguishable at this sample size: c .* and a .* USD per accepted task/,
      );
      assert.match(r.verdict.text, new RegExp(`about ${d.more_requests} more requests would separate them`));
    },
  );

  await t.step("b rejects 25 more in step-03: c is the cheapest beyond the paired interval", () => {
    const r = decision([b, c], SWEEP_POLICY, { ...OPTS, resamples: 1000 });
    const d = r.cost_differences[0]!;
    assert.ok(d.lo! > 0, `interval [${d.lo}, ${d.hi}] above 0`);
    assert.equal(d.distinguishable, true);
    assert.equal(r.verdict.kind, "cheapest");
    assert.equal(r.verdict.best, "run-c");
    assert.match(r.verdict.text, /^verdict: c is the cheapest per accepted task under the stated SLO and gates: /);
  });
});

Deno.test("decision(): the paired moving-block intervals equal an independent bootstrap on the same draws", () => {
  const seed = 7, B = 300, L = 3;
  const r = decision([a, b], SWEEP_POLICY, { ...OPTS, resamples: B, seed, blockSeconds: L });
  const steps = SWEEP_STAGES.filter((s) => s.kind === "steady");
  assert.deepEqual(r.method.strata.map((s) => [s.stage, s.units]), steps.map((s) => [s.name, 20]));
  // Each route's requests as plain arrays (the attribution is checked in request_costs_test.ts).
  const plain = [a, b].map((run) => {
    const costs = requestCosts(run, SWEEP_POLICY, DECISION_PRICES, { overheads: SWEEP_OVERHEADS });
    return { costs, stage: costs.stage, t: Array.from(costs.scheduled_ms), v: Array.from(costs.variable) };
  });
  // The bootstrap written here: per resample, per stage in order, ⌈20 / 3⌉ = 7 block starts ⌊u · 18⌋, the last block
  // cut to 2 seconds; each route's (fixed + Σ variable) / Σ accepted over the requests of every drawn second.
  const rand = mulberry32(seed);
  const stats = plain.map(() => [] as number[]);
  for (let k = 0; k < B; k++) {
    const drawn: [string, number][] = [];
    for (const s of steps) {
      let got = 0;
      while (got < 20) {
        const start = Math.floor(rand() * 18);
        for (let j = 0; j < Math.min(L, 20 - got); j++) drawn.push([s.name, start + j]);
        got += L;
      }
    }
    plain.forEach((p, i) => {
      let cost = p.costs.fixed, acc = 0;
      for (const [stage, sec] of drawn) {
        const start = steps.find((s) => s.name === stage)!.start_ms;
        p.t.forEach((t, j) => {
          if (p.stage[j] === stage && Math.floor((t - start) / 1000) === sec) {
            cost += p.v[j]!;
            acc += p.costs.accepted[j] ? 1 : 0;
          }
        });
      }
      stats[i]!.push(cost / acc);
    });
  }
  const pctl = (xs: number[]): [number, number] => {
    const s = [...xs].sort((x, y) => x - y);
    return [s[Math.floor(0.025 * B)]!, s[Math.ceil(0.975 * B) - 1]!];
  };
  r.routes.forEach((x, i) => {
    const [lo, hi] = pctl(stats[i]!);
    close(x.cost_per_accepted.lo, lo, `${x.route} lo`, 1e-9);
    close(x.cost_per_accepted.hi, hi, `${x.route} hi`, 1e-9);
  });
  const [lo, hi] = pctl(stats[1]!.map((v, k) => v - stats[0]![k]!));
  const d = r.cost_differences[0]!;
  assert.equal(d.route, "b");
  close(d.lo, lo, "b − a lo", 1e-9);
  close(d.hi, hi, "b − a hi", 1e-9);
});

Deno.test("decision(): resampling arrivals, the spread matches the ratio estimator's delta-method standard error", () => {
  // Arrivals drawn with replacement within each stage: Var(R*) ≈ Σ_stages n_s · var_s(v − R·acc) / A², where R is
  // the cost per accepted task, v a request's variable cost, acc 1 when accepted, A the accepted tasks.
  const r = decision([a, b], SWEEP_POLICY, { ...OPTS, resamples: 4000, unit: "requests" });
  for (const [i, run] of [a, b].entries()) {
    const costs = requestCosts(run, SWEEP_POLICY, DECISION_PRICES, { overheads: SWEEP_OVERHEADS });
    const R = costs.ledger.overall.cost_per_accepted_task!, A = costs.ledger.overall.accepted;
    let v2 = 0;
    for (const stage of new Set(costs.stage)) {
      const e = costs.stage.flatMap((s, j) =>
        s === stage ? [costs.variable[j]! - R * (costs.accepted[j] ? 1 : 0)] : []
      );
      const mean = e.reduce((x, y) => x + y, 0) / e.length;
      v2 += e.reduce((x, y) => x + (y - mean) ** 2, 0); // n_s × the stage's variance (1/n_s)
    }
    const se = Math.sqrt(v2) / A;
    const sd = r.routes[i]!.cost_per_accepted.sd!;
    assert.ok(Math.abs(sd / se - 1) < 0.1, `${run.manifest.run_id}: bootstrap sd ${sd} vs delta-method ${se}`);
  }
});

Deno.test("decision(): the cheapest route without the most headroom is said so", () => {
  // c is the cheapest; its limit at headroom 0.6 (8 × 0.4 = 3.2 req/s) falls to step-01 (2 req/s, 40 / 20 s = 2),
  // below a's goodput at its knee (7.2).
  const kc = knee([c], SWEEP_POLICY);
  const r = decision([a, c], SWEEP_POLICY, {
    ...OPTS,
    resamples: 200,
    knees: [{ run_id: "run-c", knee: kc, limit: limitFromKnee(kc, 0.6) }],
  });
  close(route(r, "c").goodput_at_limit.point, 2, "c at 2 req/s");
  assert.equal(route(r, "a").goodput_rank, 1);
  assert.match(
    r.headroom,
    /^headroom: the cheapest route \(c\) is not the one with the most accepted goodput .*: a is/,
  );
});

Deno.test("decision(): bad input names the runs or the flag", async (t) => {
  await t.step("runs on different schedules: no paired interval", async () => {
    const x = await sweepRoute("x", 10, "1".repeat(64));
    assert.throws(
      () => decision([a, x], SWEEP_POLICY, OPTS),
      (e) =>
        e instanceof InputError && /same schedule/.test(e.message) && /run-a/.test(e.message) &&
        /run-x .*1111/.test(e.message),
    );
    // Unpaired, each route its own draws: allowed.
    const r = decision([a, x], SWEEP_POLICY, { ...OPTS, resamples: 100, paired: false });
    assert.equal(r.method.paired, false);
    assert.equal(r.method.schedule_sha256, null);
  });
  await t.step("fewer than two runs, bad flags", () => {
    assert.throws(() => decision([a], SWEEP_POLICY, OPTS), /at least two runs/);
    assert.throws(() => decision([a, b], SWEEP_POLICY, { ...OPTS, resamples: 10 }), /--resamples/);
    assert.throws(() => parseResampleFlag("blocks:2"), /--resample: expected blocks:Ns/);
    assert.throws(
      () => decisionOptions({ resample: "time", "interval-level": 1.5, seed: -1 }),
      (e) =>
        e instanceof InputError && /--resample/.test(e.message) && /--interval-level/.test(e.message) &&
        /--seed/.test(e.message),
    );
    assert.deepEqual(decisionOptions({ resample: "requests", unpaired: true }), {
      resamples: 2000,
      seed: 1,
      unit: "requests",
      blockSeconds: 2,
      level: 0.95,
      paired: false,
    });
  });
});

Deno.test("formatDecision(): verdict first, figures that differ print differently, the method and seed stated", () => {
  const r = decision([a, b, c], SWEEP_POLICY, { ...OPTS, resamples: 200, seed: 5 });
  const lines = formatDecision(r);
  assert.equal(lines[0], r.verdict.text);
  const text = lines.join("\n");
  // Points and interval ends of cost per accepted task are one family: the fewest digits (≥ 3) at which every two
  // different ones differ. a 0.0372672 and c 0.0372091 already differ at 3 (0.0373, 0.0372).
  const row = (route: string) => lines.find((l) => new RegExp(`^\\d+\\s+${route}\\s+run-${route}\\s`).test(l))!;
  // Cells: rank, route, run, offered, accepted, cost/accepted, [lo, hi], …
  const cells = (route: string) => {
    const c = row(route).split(/\s+/);
    return [c[5]!, c[6]!.slice(1, -1), c[7]!.slice(0, -1)];
  };
  assert.deepEqual(["c", "a", "b"].map((x) => cells(x)[0]), ["0.0372", "0.0373", "0.0388"]);
  const figures = r.routes.flatMap((
    x,
  ) => [x.cost_per_accepted.point!, x.cost_per_accepted.lo!, x.cost_per_accepted.hi!]);
  const shown = r.routes.flatMap((x) => cells(x.route));
  for (let i = 0; i < figures.length; i++) {
    for (let j = 0; j < i; j++) {
      if (figures[i] !== figures[j]) assert.notEqual(shown[i], shown[j], `${figures[i]} and ${figures[j]}`);
    }
  }
  assert.match(text, /200 resamples, mulberry32 seed 5/);
  assert.match(text, /moving blocks of 2 s/);
  assert.match(text, /n_needed ≈ n × \(z · sd_diff \/ observed difference\)²/);
});
