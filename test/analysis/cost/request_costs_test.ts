import assert from "node:assert/strict";
import { requestCosts } from "../../../analysis/cost/request_costs.ts";
import { LEDGER_ITEMS } from "../../../analysis/cost/price_lines.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import {
  GPU_POLICY,
  LEDGER_POLICY,
  overheadsA,
  selfSheet,
  sheetA,
  writeGpuRun,
  writeLedgerRun,
} from "./ledger_fixture.ts";

const close = (actual: number, expected: number, what: string, tol = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);

const sum = (xs: ArrayLike<number>) => Array.from(xs).reduce((a, b) => a + b, 0);

Deno.test("requestCosts() splits the hand-worked hosted ledger into per-request variable cost and fixed cost", async (t) => {
  const run = await loadRun(writeLedgerRun(), { onWarning: () => {} });
  const c = requestCosts(run, LEDGER_POLICY, sheetA(), { overheads: overheadsA() });
  const at = (id: string) => c.variable[c.request_id.indexOf(id)]!;

  await t.step("a request's variable cost by hand", () => {
    // a1 (accepted): tokens 800 uncached × 1 + 200 cached × 0.5 + 500 out × 4 per Mtok = 0.0029; retrieval call 0.01;
    // storage 1e6 B / 1e9 × 2 months × 0.5 = 0.001; observability 0.002 + 1 attempt × 0.001 = 0.003;
    // review 0.5 × (6 min / 60 × 0.6) = 0.03; corrections 0.5 × 0.2 × (30 min / 60 × 0.6) = 0.03. Sum 0.0769.
    close(at("a1"), 0.0769, "a1");
    // a3 (HTTP 429, not charged, not accepted): storage 0.001 + observability 0.003 = 0.004.
    close(at("a3"), 0.004, "a3");
    // w1 is in the warm-up: not in the window, no row.
    assert.equal(c.request_id.includes("w1"), false);
  });

  await t.step("fixed cost: shared operations only, 36 per hour × the 10 s window = 0.1", () => {
    close(c.fixed, 0.1, "fixed");
    for (const s of c.by_item) close(s.fixed, s.item === "allocated_operations" ? 0.1 : 0, `fixed ${s.item}`);
  });

  await t.step("Σ variable + fixed is the ledger's total, per item and overall", () => {
    for (const s of c.by_item) close(s.variable + s.fixed, c.ledger.overall.cost[s.item], s.item);
    close(sum(c.variable) + c.fixed, c.ledger.overall.total, "total");
    close(
      (sum(c.variable) + c.fixed) / c.accepted.filter(Boolean).length,
      c.ledger.overall.cost_per_accepted_task!,
      "cpat",
    );
    assert.equal(c.accepted.filter(Boolean).length, c.ledger.overall.accepted);
  });
});

Deno.test("requestCosts() keeps a self-hosted route's GPU time, spares and operations fixed", async () => {
  const run = await loadRun(writeGpuRun(), { onWarning: () => {} });
  const c = requestCosts(run, GPU_POLICY, selfSheet());
  // Fixed = every line priced by the hour (GPU-hours of the timeline, the spare replica, operations): the ledger's
  // spread lines, read here from its lines by unit — an independent sum of the same amounts.
  const hourly = c.ledger.lines.filter((l) => l.unit === "GPU-hour" || l.unit === "hour");
  assert.ok(hourly.length >= 3, "GPU, redundancy and operations lines");
  close(c.fixed, sum(hourly.map((l) => l.amount)), "fixed = hourly lines");
  // Variable = the per-token and per-attempt lines: the backup route's fallback attempts (hosted).
  const perUse = c.ledger.lines.filter((l) => l.unit !== "GPU-hour" && l.unit !== "hour");
  close(sum(c.variable), sum(perUse.map((l) => l.amount)), "variable = the other lines");
  for (const item of LEDGER_ITEMS) {
    const s = c.by_item.find((x) => x.item === item)!;
    close(s.variable + s.fixed, c.ledger.overall.cost[item], item);
  }
  close(sum(c.variable) + c.fixed, c.ledger.overall.total, "total");
});
