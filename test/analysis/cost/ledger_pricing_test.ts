import assert from "node:assert/strict";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { hosted, LEDGER_POLICY, overheadsA, sheetA, writeLedgerRun } from "./ledger_fixture.ts";

const close = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);

Deno.test("ledger() pricing rules on the hand-worked run", async (t) => {
  const run = await loadRun(writeLedgerRun(), { onWarning: () => {} });
  const base = ledger(run, LEDGER_POLICY, sheetA(), { overheads: overheadsA() });
  // h1 is the only request with an attempt on backup: the backup lines are its fallback.
  const routeCost = (r: typeof base, route: string) =>
    r.lines.filter((l) => l.route === route).reduce((s, l) => s + l.amount, 0);

  await t.step("a hybrid request that failed on the primary and succeeded on the fallback is charged on both", () => {
    // h1: attempt 0 on hosted (HTTP 503, failed; sheet A charges failed on hosted) 700 in × 1 $/Mtok = 0.0007, and
    // attempt 1 on backup (served) 700 × 2 + 200 × 8 = 0.003.
    const failed = base.lines.find((l) => l.route === "hosted" && /uncached \(failed/.test(l.detail))!;
    close(failed.quantity, (1000 + 700) / 1e6, "a2 and h1 failed input on hosted");
    close(routeCost(base, "backup"), 0.003, "fallback on backup");
    // Without h1's primary charge the failed line would hold a2's 1000 tokens only; make the primary free to check.
    const free = ledger(
      run,
      LEDGER_POLICY,
      sheetA({
        routes: { ...sheetA().routes, hosted: hosted(1, 0.5, 4, { rejected: false, failed: false, cancelled: true }) },
      }),
    );
    const notCharged = free.lines.find((l) => l.route === "hosted" && /^failed attempts, not charged/.test(l.detail))!;
    assert.equal(notCharged.quantity, 2); // a2 attempt 0 and h1 attempt 0
    close(base.overall.cost.provider_or_gpu - free.overall.cost.provider_or_gpu, 0.0017, "both failed attempts' input");
    close(routeCost(free, "backup"), 0.003, "the fallback is still charged");
  });

  await t.step("rejected requests are charged only where the sheet says so", () => {
    const rejected = hosted(1, 0.5, 4, { rejected: true, failed: true, cancelled: true });
    const r = ledger(run, LEDGER_POLICY, sheetA({ routes: { ...sheetA().routes, hosted: rejected } }), {
      overheads: overheadsA(),
    });
    // a3's 429 carries 800 input tokens: 0.0008 more, under provider_or_gpu, and 800 more charged tokens.
    close(r.overall.cost.provider_or_gpu - base.overall.cost.provider_or_gpu, 0.0008, "429 charged");
    assert.equal(r.overall.naive.tokens - base.overall.naive.tokens, 800);
    assert.ok(r.lines.some((l) => /uncached \(rejected, charged\)/.test(l.detail)));
    assert.ok(!r.lines.some((l) => /rejected attempts, not charged/.test(l.detail)));
    assert.ok(base.lines.some((l) => /rejected attempts, not charged/.test(l.detail) && l.amount === 0));
  });

  await t.step("re-pricing with another sheet changes cost and nothing else", () => {
    const b = sheetA({
      name: "sheet-b",
      as_of: "2026-02-02",
      source: "test sheet B",
      routes: {
        hosted: hosted(3, 1.5, 12, { rejected: false, failed: true, cancelled: true }),
        backup: hosted(6, null, 24, { rejected: false, failed: false, cancelled: false }),
      },
    });
    const r = ledger(run, LEDGER_POLICY, b, { overheads: overheadsA() });
    // Every model price is 3×: model bill 0.0129 → 0.0387; overheads unchanged.
    close(r.overall.naive.model_bill, 3 * 0.0129, "model bill");
    close(r.overall.total - base.overall.total, 2 * 0.0129, "total moves by the model bill only");
    assert.deepEqual(r.disclosure, base.disclosure);
    const counts = (x: typeof base) => [x.overall.offered, x.overall.sent, x.overall.completed, x.overall.accepted];
    assert.deepEqual(counts(r), counts(base));
    assert.deepEqual(r.by_class.map((c) => [c.class, c.accepted]), base.by_class.map((c) => [c.class, c.accepted]));
    const shape = (x: typeof base) =>
      x.lines.map((l) => [l.item, l.route, l.detail, l.unit, +l.quantity.toPrecision(12)]);
    assert.deepEqual(shape(r), shape(base));
    const model = (x: typeof base) => x.lines.filter((l) => l.route !== null);
    model(r).forEach((l, i) => close(l.amount, 3 * model(base)[i]!.amount, `line ${l.detail}`));
    assert.equal(r.overall.naive.tokens, base.overall.naive.tokens);
    assert.equal(r.pricing.price_sheet.name, "sheet-b");
    assert.ok(model(r).every((l) => l.source.includes("2026-02-02")));
  });

  await t.step("service tier and context tier", () => {
    const tiered = {
      ...hosted(1, 0.5, 4, { rejected: false, failed: true, cancelled: true }),
      service_tier: "batch",
      batch_discount: 0.5,
      // a1, a2 (1000 input tokens each) are above 900: 10 / 5 / 40 per Mtok, then halved by the batch tier.
      context_tiers: [{
        above_input_tokens: 900,
        input_per_mtok: 10,
        cached_input_per_mtok: 5,
        output_per_mtok: 40,
        reasoning_per_mtok: null,
        cache_write_per_mtok: null,
      }],
    };
    const r = ledger(run, LEDGER_POLICY, sheetA({ routes: { ...sheetA().routes, hosted: tiered } }));
    const line = r.lines.find((l) =>
      l.item === "provider_or_gpu" && l.detail === "output tokens, input above 900 tokens, batch tier"
    )!;
    // a1's 500 output tokens × 40 × 0.5 = 0.01.
    close(line.amount, 0.01, "a1 output at the tier, batch price");
    close(line.unit_price, 20, "unit price");
  });

  await t.step("an unpriced route is an input error naming the sheet and the route", () => {
    assert.throws(
      () => ledger(run, LEDGER_POLICY, sheetA({ routes: { hosted: sheetA().routes.hosted! } })),
      (e: Error) => e.name === "InputError" && /sheet-a/.test(e.message) && /route "backup"/.test(e.message),
    );
  });

  await t.step("a different currency in the overheads is refused", () => {
    assert.throws(
      () => ledger(run, LEDGER_POLICY, sheetA(), { overheads: overheadsA({ currency: "EUR" }) }),
      /EUR/,
    );
  });
});
