import assert from "node:assert/strict";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LedgerLine } from "../../../analysis/cost/price_lines.ts";
import { LEDGER_POLICY, overheadsA, sheetA, writeLedgerRun } from "./ledger_fixture.ts";

const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

const find = (lines: LedgerLine[], item: string, route: string | null, detail: RegExp) => {
  const hit = lines.filter((l) => l.item === item && l.route === route && detail.test(l.detail));
  assert.equal(hit.length, 1, `one ${item}/${route}/${detail} line, got ${hit.length}`);
  return hit[0]!;
};

Deno.test("ledger() of the hand-worked run: every line item, total and cost per accepted task", async (t) => {
  const run = await loadRun(writeLedgerRun(), { onWarning: () => {} });
  const r = ledger(run, LEDGER_POLICY, sheetA(), { overheads: overheadsA() });

  await t.step("model lines: first attempts, retries, fallback, uncharged 429", () => {
    // a1 served: uncached (1000 − 200) = 800 tok × 1 $/Mtok = 0.0008; cached 200 × 0.5 = 0.0001; output 500 × 4 = 0.002.
    // a4 served 600 in, 300 out; a2 attempt 0 (HTTP 500, failed, charged) 1000 in; a5 cancelled (charged) 500 in, 100 out;
    // h1 attempt 0 (HTTP 503 on hosted, failed, charged) 700 in. Uncached input of first attempts on hosted:
    // 800 + 600 = 1400 served → 0.0014; failed 1000 + 700 = 1700 → 0.0017; cancelled 500 → 0.0005.
    const l = r.lines;
    close(find(l, "provider_or_gpu", "hosted", /^input tokens, uncached$/).amount, 0.0014, "served input");
    close(find(l, "provider_or_gpu", "hosted", /^input tokens, uncached \(failed/).quantity, 0.0017, "failed Mtok");
    close(find(l, "provider_or_gpu", "hosted", /^input tokens, uncached \(failed/).amount, 0.0017, "failed input");
    close(
      find(l, "provider_or_gpu", "hosted", /^input tokens, uncached \(cancelled/).amount,
      0.0005,
      "cancelled input",
    );
    close(find(l, "provider_or_gpu", "hosted", /^input tokens, cached$/).amount, 0.0001, "cached");
    // Output of first attempts: a1 500 + a4 300 = 800 × 4 = 0.0032 served; a5 100 × 4 = 0.0004 cancelled.
    close(find(l, "provider_or_gpu", "hosted", /^output tokens$/).amount, 0.0032, "served output");
    close(find(l, "provider_or_gpu", "hosted", /^output tokens \(cancelled/).amount, 0.0004, "cancelled output");
    // a3's 429 is not charged under sheet A: one attempt at 0.
    const rej = find(l, "provider_or_gpu", "hosted", /^rejected attempts, not charged/);
    assert.deepEqual([rej.quantity, rej.amount, rej.unit], [1, 0, "attempt"]);
    // Retries: a2 attempt 1 on hosted 1000 in (0.001) + 400 out (0.0016); h1's fallback on backup 700 × 2 = 0.0014
    // + 200 × 8 = 0.0016.
    close(find(l, "retries", "hosted", /^input tokens, uncached$/).amount, 0.001, "retry input");
    close(find(l, "retries", "hosted", /^output tokens$/).amount, 0.0016, "retry output");
    close(find(l, "retries", "backup", /^input tokens, uncached$/).amount, 0.0014, "fallback input");
    close(find(l, "retries", "backup", /^output tokens$/).amount, 0.0016, "fallback output");
    // w1 (warm-up) is out of the window: no line holds its 1000 + 100 tokens. Sum of provider_or_gpu:
    // 0.0014 + 0.0017 + 0.0005 + 0.0001 + 0.0032 + 0.0004 = 0.0073; retries 0.0026 + 0.003 = 0.0056.
    close(r.overall.cost.provider_or_gpu, 0.0073, "provider_or_gpu");
    close(r.overall.cost.retries, 0.0056, "retries");
    assert.ok(l.every((x) => x.source.includes("as of")), "every line states its date");
  });

  await t.step("overhead lines", () => {
    const l = r.lines;
    // retrieval: 1 call × 0.01; tools: h1's failed search call × 0.02 (failed calls are charged).
    close(find(l, "retrieval", null, /retrieval calls/).amount, 0.01, "retrieval");
    close(find(l, "tools", null, /search calls/).amount, 0.02, "tools");
    // storage: 6 sent × 1e6 B = 0.006 GB × 2 months = 0.012 GB-month × 0.5 = 0.006.
    const st = find(l, "storage", null, /records/);
    close(st.quantity, 0.012, "GB-months");
    close(st.amount, 0.006, "storage");
    // observability: 6 sent × 0.002 = 0.012; 8 attempts (1+2+1+1+1+2) × 0.001 = 0.008.
    close(find(l, "observability", null, /traces/).amount, 0.012, "traces");
    close(find(l, "observability", null, /spans/).amount, 0.008, "spans");
    // review: 3 accepted (a1 a2 h1) × 0.5 = 1.5 reviews × 6 min (0.1 h × 0.6 $/h = 0.06) = 0.09;
    // corrections: 1.5 × 0.2 = 0.3 × 30 min (0.5 h × 0.6 = 0.3) = 0.09.
    const rev = find(l, "human_review", null, /^reviews/);
    close(rev.quantity, 1.5, "reviews");
    close(rev.amount, 0.09, "review cost");
    close(find(l, "human_review", null, /^corrections/).amount, 0.09, "corrections");
    // operations: 36 $/h × 10 s window = 0.1.
    close(find(l, "allocated_operations", null, /shared operations/).amount, 0.1, "operations");
  });

  await t.step("totals, cost per accepted task and the naive figures", () => {
    const o = r.overall;
    assert.deepEqual([o.offered, o.sent, o.completed, o.accepted], [6, 6, 4, 3]);
    // 0.0073 + 0.0056 + 0.01 + 0.02 + 0.006 + 0.02 + 0.18 + 0.1 = 0.3489; / 3 accepted = 0.1163; / 6 offered = 0.05815.
    close(o.total, 0.3489, "total");
    close(o.cost_per_accepted_task, 0.1163, "cost per accepted task");
    close(o.cost_per_offered_request, 0.05815, "cost per offered request");
    // model bill 0.0129 / 6 sent = 0.00215; charged tokens: a1 1500, a2 1000 + 1400, a4 900, a5 600, h1 700 + 900
    // = 7000 (a3's 429 not charged) → 0.0129 / 7000 × 1e6 = 1.842857…
    close(o.naive.model_bill, 0.0129, "model bill");
    close(o.naive.per_request, 0.00215, "naive per request");
    assert.equal(o.naive.tokens, 7000);
    close(o.naive.per_mtok, 0.0129 / 7000 * 1e6, "naive per Mtok");
    close(o.ratio_to_naive_per_request, 0.1163 / 0.00215, "ratio");
    const lineSum = r.lines.reduce((s, x) => s + x.amount, 0);
    close(lineSum, o.total, "lines sum to the total");
    assert.equal(o.unallocated, 0);
  });

  await t.step("by class and by route sum to the total and use goodput's accepted", () => {
    // other = a4: 0.0018 model + storage 0.001 + traces 0.002 + 1 span 0.001 + operations 0.1 / 6.
    const other = r.by_class.find((c) => c.class === "other")!;
    assert.deepEqual([other.offered, other.accepted, other.cost_per_accepted_task], [1, 0, null]);
    close(other.total, 0.0018 + 0.001 + 0.002 + 0.001 + 0.1 / 6, "class other");
    const qa = r.by_class.find((c) => c.class === "qa")!;
    assert.equal(qa.accepted, 3);
    close(qa.total + other.total, 0.3489, "classes sum");
    // Every request's route is hosted (h1's fallback attempt on backup is charged to its task's route).
    assert.deepEqual(r.by_route.map((x) => [x.route, x.offered, x.accepted]), [["hosted", 6, 3]]);
    close(r.by_route[0]!.total, 0.3489, "route total");
    assert.equal(r.disclosure.denominator, "offered");
    assert.equal(r.disclosure.window.measurement_seconds, 10);
    assert.deepEqual(r.pricing.price_sheet, { name: "sheet-a", as_of: "2026-01-02", source: "test sheet A" });
  });

  await t.step("human review on completed tasks instead of accepted", () => {
    const oh = overheadsA();
    const c = ledger(run, LEDGER_POLICY, sheetA(), {
      overheads: { ...oh, human_review: { ...oh.human_review, basis: "completed" } },
    });
    // 4 completed (a1 a2 a4 h1) × 0.06 = 0.24 instead of 0.18.
    close(c.overall.cost.human_review, 0.24, "review on completed");
    assert.ok(c.pricing.rules.some((s) => /0\.5 × completed tasks/.test(s)));
  });

  await t.step("without an overheads sheet the overhead lines are there at 0 and say so", () => {
    const n = ledger(run, LEDGER_POLICY, sheetA());
    close(n.overall.total, 0.0129, "model bill only");
    const st = find(n.lines, "storage", null, /records/);
    assert.equal(st.amount, 0);
    assert.match(st.source, /no overheads sheet/);
    assert.equal(n.pricing.overheads, null);
  });
});
