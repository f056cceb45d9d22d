/**
 * The wait breakdown recomputed independently: a seeded recording of random tasks (phases, tool steps and model
 * calls that overlap each other and spill outside the wait, negative-length network phases, failed calls), each
 * task's wait charged millisecond by millisecond in plain TypeScript — every unit [t, t + 1) to the first segment in
 * the charging order that covers it — and the statistics recomputed by hand; the polars result must agree exactly.
 */
import assert from "node:assert/strict";
import { WAIT_SEGMENTS, waitBreakdown, type WaitSegment } from "../../../analysis/latency/wait_breakdown.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { RANDOM_POLICY as POLICY, randomRecording, randomTables, type Tables } from "./_wait_fixture.ts";

const CHARGE: WaitSegment[] = ["page", "network", "queue", "retrieval", "tools", "model", "render", "page", "other"];

/** One task's wait charged ms by ms: a plain reading of the rules, sharing no code with the analysis. */
function chargeByHand(s: number, e: number, rows: Tables, id: string): Record<WaitSegment, number> {
  const ph = rows.phases.filter((p) => p.request_id === id);
  const iv: [number, number, number][] = [];
  const add = (k: number, a: number | null, b: number | null) => {
    if (a !== null && b !== null) iv.push([k, a, b]);
  };
  for (const p of ph) {
    const k = { page: 0, network_up: 1, network_down: 1, queue: 2, render: 6 }[p.phase];
    if (k !== undefined) add(k, p.started_ms, p.ended_ms);
  }
  for (const x of rows.tools.filter((x) => x.request_id === id)) {
    add(x.tool === "retrieval" ? 3 : 4, x.started_ms, x.ended_ms);
  }
  for (const a of rows.attempts.filter((x) => x.request_id === id)) {
    add(5, a.sent_ms, a.completed_ms ?? a.last_token_ms ?? a.first_token_ms ?? a.headers_ms);
  }
  const req = rows.requests.find((x) => x.request_id === id)!;
  if (!ph.length) add(7, s, req.first_sent_ms);
  add(8, s, e);
  const out = Object.fromEntries(WAIT_SEGMENTS.map((g) => [g, 0])) as Record<WaitSegment, number>;
  for (let t = s; t < e; t++) {
    for (let k = 0; k < CHARGE.length; k++) {
      if (iv.some(([j, a, b]) => j === k && a <= t && b >= t + 1)) {
        out[CHARGE[k]!] += 1;
        break;
      }
    }
  }
  return out;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const rank = (xs: number[], p: number) => {
  if (!xs.length) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length - 1e-9))) - 1]!;
};

Deno.test("waitBreakdown() agrees with a millisecond-by-millisecond recomputation over random tasks", async () => {
  const rows = randomTables();
  const dir = randomRecording(rows);
  const w = waitBreakdown(await loadRun(dir, { onWarning: () => {} }), POLICY);

  const done = rows.requests.filter((x) => x.outcome === "ok");
  const limit = (cls: string) => (cls === "chat" ? 600 : 700);
  const hand = done.map((x) => {
    const e2e = x.completed_ms! - x.scheduled_ms;
    const ph = rows.phases.filter((p) => p.request_id === x.request_id).map((p) => p.phase);
    const has: Record<WaitSegment, boolean> = {
      page: ph.includes("page") || ph.length === 0,
      network: ph.includes("network_up") || ph.includes("network_down"),
      queue: ph.includes("queue"),
      retrieval: true,
      model: true,
      tools: true,
      render: ph.includes("render"),
      other: true,
    };
    return {
      id: x.request_id,
      cls: x.class,
      accepted: e2e <= limit(x.class),
      e2e,
      ms: chargeByHand(x.scheduled_ms, x.completed_ms!, rows, x.request_id),
      has,
    };
  });
  // Per task: the same milliseconds in every segment, and they add up to the wait.
  const got = new Map(w.tasks.toRecords().map((r) => [r.request_id as string, r]));
  assert.equal(got.size, hand.length);
  for (const h of hand) {
    const g = got.get(h.id)!;
    for (const s of WAIT_SEGMENTS) {
      assert.equal(g[`${s}_ms`], h.ms[s], `${h.id} ${s}`);
      assert.equal(g[`has_${s}`], h.has[s], `${h.id} has_${s}`);
    }
    assert.equal(WAIT_SEGMENTS.reduce((n, s) => n + h.ms[s], 0), h.e2e, `${h.id} adds up`);
  }
  // Per group: the statistics of the rules, recomputed.
  for (const row of w.rows) {
    const tasks = hand.filter((h) =>
      (row.population === "completed" || h.accepted) && (row.class === null || h.cls === row.class)
    );
    assert.equal(row.n, tasks.length);
    for (const s of WAIT_SEGMENTS) {
      const measured = tasks.filter((h) => h.has[s]);
      const ms = measured.map((h) => h.ms[s]);
      const want = {
        n: measured.length,
        mean_share: mean(measured.filter((h) => h.e2e > 0).map((h) => h.ms[s] / h.e2e)),
        pooled_share: measured.length ? ms.reduce((a, b) => a + b, 0) / tasks.reduce((n, h) => n + h.e2e, 0) : null,
        mean_ms: mean(ms),
        median_ms: rank(ms, 0.5),
        p95_ms: rank(ms, 0.95),
      };
      const at = `${row.population} ${row.class} ${s}`;
      assert.equal(row.segments[s].n, want.n, at);
      for (const k of ["mean_share", "pooled_share", "mean_ms", "median_ms", "p95_ms"] as const) {
        const a = row.segments[s][k], b = want[k];
        assert.ok(a === b || (a !== null && b !== null && Math.abs(a - b) < 1e-9), `${at} ${k}: ${a} ≠ ${b}`);
      }
    }
    const outside = tasks.map((h) => h.e2e - h.ms.model);
    const total = tasks.reduce((n, h) => n + h.e2e, 0);
    const pooled = total ? outside.reduce((a, b) => a + b, 0) / total : null;
    assert.ok(Math.abs(row.outside_model.pooled_share! - pooled!) < 1e-9, `${row.population} ${row.class} pooled`);
    assert.equal(row.outside_model.p95_ms, rank(outside, 0.95));
  }
  // The random tasks exercise every segment.
  const all = w.rows.find((r) => r.population === "completed" && r.class === null)!;
  for (const s of WAIT_SEGMENTS) assert.ok((all.segments[s].mean_ms ?? 0) > 0, `${s} is exercised`);
});
