import assert from "node:assert/strict";
import { drawSample, type Sampleable } from "../../../../analysis/quality/review/draw_sample.ts";

/** 100 answers: class a (60: 40 on route x, 20 on y) and class b (40: 30 on x, 10 on y), two runs. */
function population(): Sampleable[] {
  const out: Sampleable[] = [];
  const add = (n: number, cls: string, route: string) => {
    for (let i = 0; i < n; i++) {
      out.push({
        run_id: route === "x" ? "run-x" : "run-y",
        request_id: `${cls}${route}${i}`,
        class: cls,
        route,
        stage: "s",
      });
    }
  };
  add(40, "a", "x");
  add(20, "a", "y");
  add(30, "b", "x");
  add(10, "b", "y");
  return out;
}

const sizes = (s: ReturnType<typeof drawSample>) => s.strata.map((x) => [x.name, x.population, x.sampled]);

Deno.test("drawSample: per stratum, every stratum gives N (all of a smaller one), drawn from its own items", () => {
  const s = drawSample(population(), {
    strata: ["class", "route"],
    sizing: { mode: "per_stratum", per_stratum: 12 },
    seed: 5,
  });
  assert.deepEqual(sizes(s), [["a / x", 40, 12], ["a / y", 20, 12], ["b / x", 30, 12], ["b / y", 10, 10]]);
  assert.equal(s.items.length, 46);
  for (const { stratum, item } of s.items) assert.equal(stratum, `${item.class} / ${item.route}`);
  assert.equal(new Set(s.items.map((x) => x.item.request_id)).size, 46, "without replacement");
});

Deno.test("drawSample: a total is split in proportion (largest remainder, a minimum each)", () => {
  const s = drawSample(population(), {
    strata: ["class", "route"],
    sizing: { mode: "total", total: 20, min_per_stratum: 2 },
    seed: 5,
  });
  // 20 · (40, 20, 30, 10)/100 = 8, 4, 6, 2: all whole, all ≥ 2.
  assert.deepEqual(sizes(s), [["a / x", 40, 8], ["a / y", 20, 4], ["b / x", 30, 6], ["b / y", 10, 2]]);
  assert.deepEqual(s.strata.map((x) => x.proportional), [8, 4, 6, 2]);
  // 10 · (0.4, 0.2, 0.3, 0.1) = 4, 2, 3, 1 → b/y raised to 2; the other 8 over 90: 3.56, 1.78, 2.67 → a/y raised to
  // 2; the other 6 over 70: 3.43, 2.57 → floors 3, 2 and the 1 left to the larger remainder (.57): 3, 2, 3, 2.
  const t = drawSample(population(), {
    strata: ["class", "route"],
    sizing: { mode: "total", total: 10, min_per_stratum: 2 },
    seed: 5,
  });
  assert.deepEqual(t.strata.map((x) => x.sampled), [3, 2, 3, 2]);
});

Deno.test("drawSample: a half-width gives the Cochran total for the whole population, split in proportion", () => {
  const s = drawSample(population(), {
    strata: ["class"],
    sizing: { mode: "half_width", half_width: 0.1, level: 0.95, min_per_stratum: 2 },
    seed: 1,
  });
  // n0 = 1.959964² · 0.25 / 0.01 = 96.04; n = 96.04 / (1 + 95.04/100) = 49.24 → 50; split 60:40 → 30, 20.
  assert.ok(Math.abs(s.n_exact! - 96.0365 / (1 + 95.0365 / 100)) < 1e-3, String(s.n_exact));
  assert.equal(s.total, 50);
  assert.deepEqual(sizes(s), [["a", 60, 30], ["b", 40, 20]]);
});

Deno.test("drawSample: the same seed draws the same items; another seed others; one stratum's draw ignores the rest", () => {
  const o = { strata: ["class", "route"] as const, sizing: { mode: "per_stratum", per_stratum: 5 } as const };
  const ids = (s: ReturnType<typeof drawSample>) => s.items.map((x) => x.item.request_id);
  const a = drawSample(population(), { ...o, seed: 11 });
  assert.deepEqual(ids(drawSample(population(), { ...o, seed: 11 })), ids(a));
  assert.notDeepEqual(ids(drawSample(population(), { ...o, seed: 12 })), ids(a));
  // The input order does not matter, and removing stratum b/y leaves the other strata's draws as they were.
  assert.deepEqual(ids(drawSample([...population()].reverse(), { ...o, seed: 11 })), ids(a));
  const without = drawSample(population().filter((p) => !(p.class === "b" && p.route === "y")), { ...o, seed: 11 });
  assert.deepEqual(ids(without), ids(a).filter((id) => !id.startsWith("by")));
});

Deno.test("drawSample: the draw is uniform within a stratum (each of 10 items drawn ≈ half the time over 4000 seeds)", () => {
  const pop = population().filter((p) => p.class === "b" && p.route === "y");
  const count = new Map<string, number>();
  for (let seed = 0; seed < 4000; seed++) {
    for (
      const { item } of drawSample(pop, { strata: ["class"], sizing: { mode: "per_stratum", per_stratum: 5 }, seed })
        .items
    ) {
      count.set(item.request_id, (count.get(item.request_id) ?? 0) + 1);
    }
  }
  // Each item is drawn with p = 5/10; over 4000 draws sd = sqrt(4000 · 0.25) ≈ 31.6: within ±5 sd of 2000.
  for (const [id, n] of count) assert.ok(Math.abs(n - 2000) < 160, `${id}: ${n}`);
  assert.equal(count.size, 10);
});

Deno.test("drawSample: a total that cannot give every stratum its minimum is a RangeError", () => {
  assert.throws(
    () =>
      drawSample(population(), {
        strata: ["class", "route"],
        sizing: { mode: "total", total: 6, min_per_stratum: 2 },
        seed: 1,
      }),
    RangeError,
  );
});
