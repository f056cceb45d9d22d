import assert from "node:assert/strict";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { formatLedger } from "../../../analysis/cost/format_ledger.ts";
import type { LedgerLine } from "../../../analysis/cost/price_lines.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { HostedPrice, ServiceTierPrice } from "../../../schema/prices.ts";
import { hosted, LEDGER_POLICY, ledgerTables, sheetA, writeLedgerRun } from "./ledger_fixture.ts";

const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);
const find = (lines: LedgerLine[], item: string, route: string, detail: string) => {
  const hit = lines.filter((l) => l.item === item && l.route === route && l.detail === detail);
  assert.equal(hit.length, 1, `one ${item}/${route}/"${detail}" line, got ${hit.length}`);
  return hit[0]!;
};
const sum = (lines: LedgerLine[], item: string, route: string) =>
  lines.filter((l) => l.item === item && l.route === route).reduce((s, l) => s + l.amount, 0);

/**
 * The hand-worked run (ledger_fixture.ts) with the tiers its answers say served them: a1 `priority`, a2's retry
 * `flex`, a4 `default`; every other attempt null (not stated: the failed a2/0 and h1/0, the cancelled a5, the 429 a3,
 * the fallback h1/1 on backup).
 */
function tierRun(): string {
  const served: Record<string, string> = { "a1/0": "priority", "a2/1": "flex", "a4/0": "default" };
  const t = ledgerTables();
  t.attempts = t.attempts.map((a) => ({ ...a, service_tier: served[`${a.request_id}/${a.attempt}`] ?? null }));
  return writeLedgerRun(t);
}

/** hosted: base 1 / 0.5 / 4 per Mtok; priority at its own 2 / 1 / 8; flex at half the base. */
const tiered = (over: Partial<HostedPrice> = {}) =>
  sheetA({
    routes: {
      hosted: HostedPrice.parse({
        ...hosted(1, 0.5, 4, { rejected: false, failed: true, cancelled: true }),
        tier_multipliers: { flex: 0.5 },
        tiers: { priority: { input_per_mtok: 2, cached_input_per_mtok: 1, output_per_mtok: 8 } },
        ...over,
      }),
      backup: sheetA().routes.backup!,
    },
  });

Deno.test("ledger() prices each hosted attempt at the tier its answer says served it", async (t) => {
  const run = await loadRun(tierRun(), { onWarning: () => {} });
  const r = ledger(run, LEDGER_POLICY, tiered());
  const l = r.lines;

  await t.step("served priority at tiers.priority, flex at the multiplier, default (not on the sheet) at base", () => {
    // a1 priority [1000/200/500]: uncached 800 × 2 = 0.0016; cached 200 × 1 = 0.0002; output 500 × 8 = 0.004.
    close(find(l, "provider_or_gpu", "hosted", "input tokens, uncached, priority tier").amount, 0.0016, "a1 in");
    close(find(l, "provider_or_gpu", "hosted", "input tokens, cached, priority tier").amount, 0.0002, "a1 cached");
    close(find(l, "provider_or_gpu", "hosted", "output tokens, priority tier").amount, 0.004, "a1 out");
    // a2/1 flex, a retry [1000/0/400]: 1000 × 1 × 0.5 = 0.0005; 400 × 4 × 0.5 = 0.0008.
    const flexIn = find(l, "retries", "hosted", "input tokens, uncached, flex tier");
    assert.equal(flexIn.unit_price, 0.5);
    close(flexIn.amount, 0.0005, "a2/1 in");
    close(find(l, "retries", "hosted", "output tokens, flex tier").amount, 0.0008, "a2/1 out");
    // a4 default [600/0/300]: base 600 × 1 = 0.0006, 300 × 4 = 0.0012, on lines that say the tier is not on the sheet.
    const off = ", default tier (not on the sheet: base prices)";
    close(find(l, "provider_or_gpu", "hosted", `input tokens, uncached${off}`).amount, 0.0006, "a4 in");
    close(find(l, "provider_or_gpu", "hosted", `output tokens${off}`).amount, 0.0012, "a4 out");
    // Not stated, at the sheet's standard: a2/0 failed 1000 in = 0.001; a5 cancelled 500 in + 100 out × 4 = 0.0009;
    // h1/0 failed 700 in = 0.0007.
    close(find(l, "provider_or_gpu", "hosted", "input tokens, uncached (failed, charged)").amount, 0.0017, "failed");
    // hosted first attempts: 0.0058 (a1) + 0.0018 (a4) + 0.0017 (failed) + 0.0009 (a5) = 0.0102; retries 0.0013.
    close(sum(l, "provider_or_gpu", "hosted"), 0.0102, "hosted provider");
    close(sum(l, "retries", "hosted"), 0.0013, "hosted retries");
    // backup (h1/1, not stated): 700 × 2 + 200 × 8 = 0.003, as without tiers.
    close(sum(l, "retries", "backup"), 0.003, "backup");
  });

  await t.step("the disclosure counts the charged attempts of each route by the tier prices that applied", () => {
    const byRoute = (route: string) =>
      r.pricing.service_tiers.filter((s) => s.route === route).map((s) => [s.applied, s.attempts]).sort();
    // hosted: 7 attempts in the window, a3 (429) not charged: 6 charged = 1 + 1 + 1 + 3.
    assert.deepEqual(byRoute("hosted"), [
      ["served default: base prices (not on the sheet)", 1],
      ["served flex: tier_multipliers.flex", 1],
      ["served priority: tiers.priority", 1],
      ["sheet standard: base prices", 3],
    ]);
    assert.deepEqual(byRoute("backup"), [["sheet standard: base prices", 1]]);
    assert.ok(r.pricing.rules.some((s) => s.startsWith("service tiers: each hosted attempt is priced at the tier")));
    assert.match(
      formatLedger(r),
      /service tier prices, route hosted: .*served priority: tiers\.priority \(1 attempts\)/,
    );
  });

  await t.step("a log without served tiers prices as before: every attempt at the sheet's tier", async () => {
    const plain = await loadRun(writeLedgerRun(ledgerTables()), { onWarning: () => {} });
    const before = ledger(plain, LEDGER_POLICY, sheetA());
    const now = ledger(plain, LEDGER_POLICY, tiered());
    assert.deepEqual(now.lines, before.lines);
    assert.deepEqual(now.pricing.service_tiers.filter((s) => s.route === "hosted"), [
      { route: "hosted", applied: "sheet standard: base prices", attempts: 6 },
    ]);
  });
});

Deno.test("ledger(): the sheet's service_tier may be a tier of tiers; a served tier's own context tiers apply", async () => {
  const run = await loadRun(tierRun(), { onWarning: () => {} });
  const r = ledger(
    run,
    LEDGER_POLICY,
    tiered({
      service_tier: "priority",
      tiers: {
        priority: ServiceTierPrice.parse({
          input_per_mtok: 2,
          output_per_mtok: 8,
          context_tiers: [{ above_input_tokens: 900, input_per_mtok: 3, output_per_mtok: 12 }],
        }),
      },
    }),
  );
  // a1 (served priority, 1000 in > 900): the priority context tier: uncached 800 × 3 = 0.0024, cached 200 × 3 (its
  // cached price is null: its input price) = 0.0006, output 500 × 12 = 0.006.
  const ctx = ", input above 900 tokens, priority tier";
  close(find(r.lines, "provider_or_gpu", "hosted", `input tokens, uncached${ctx}`).amount, 0.0024, "a1 in");
  close(find(r.lines, "provider_or_gpu", "hosted", `input tokens, cached${ctx}`).amount, 0.0006, "a1 cached");
  close(find(r.lines, "provider_or_gpu", "hosted", `output tokens${ctx}`).amount, 0.006, "a1 out");
  // a5 (not stated, 500 in ≤ 900): the sheet's tier, priority: 500 × 2 = 0.001, 100 × 8 = 0.0008.
  close(
    find(r.lines, "provider_or_gpu", "hosted", "input tokens, uncached, priority tier (cancelled, charged)").amount,
    0.001,
    "a5 in",
  );
  close(
    find(r.lines, "provider_or_gpu", "hosted", "output tokens, priority tier (cancelled, charged)").amount,
    0.0008,
    "a5",
  );
  assert.ok(r.pricing.service_tiers.some((s) => s.applied === "sheet priority: tiers.priority" && s.attempts === 3));
});

Deno.test("HostedPrice refuses a tier priced twice and accepts a sheet tier named in tiers", () => {
  const base = {
    kind: "hosted",
    input_per_mtok: 1,
    output_per_mtok: 2,
    charge: hosted(1, null, 2, {
      rejected: false,
      failed: false,
      cancelled: false,
    }).charge,
  };
  const twice = HostedPrice.safeParse({
    ...base,
    tier_multipliers: { flex: 0.5 },
    tiers: { flex: { input_per_mtok: 0.5, output_per_mtok: 1 } },
  });
  assert.equal(twice.success, false);
  assert.match(twice.error!.issues[0]!.message, /"flex" is priced twice \(tier_multipliers too\)/);
  assert.equal(
    HostedPrice.safeParse({ ...base, tiers: { standard: { input_per_mtok: 1, output_per_mtok: 2 } } }).success,
    false,
  );
  const ok = HostedPrice.parse({
    ...base,
    service_tier: "flex",
    tiers: { flex: { input_per_mtok: 0.5, output_per_mtok: 1 } },
  });
  assert.deepEqual(ok.tiers.flex, {
    input_per_mtok: 0.5,
    cached_input_per_mtok: null,
    output_per_mtok: 1,
    reasoning_per_mtok: null,
    cache_write_per_mtok: null,
    context_tiers: [],
  });
  assert.equal(HostedPrice.safeParse({ ...base, service_tier: "turbo" }).success, false);
});
