import assert from "node:assert/strict";
import { join } from "node:path";
import { FAILURE_ORDER, type FailureReason, GATE_ORDER } from "../../../analysis/goodput/classify.ts";
import { goodput, type GoodputRow } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { type AttemptRow, OUTCOMES, type RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";
import { seededUniform } from "../../../testing/seeded.ts";

const STAGES: Stage[] = [
  { name: "w", kind: "warmup", start_ms: 0, end_ms: 2000, offered_rps: 1 },
  { name: "s", kind: "steady", start_ms: 2000, end_ms: 6000, offered_rps: 1 },
  { name: "b", kind: "burst", start_ms: 6000, end_ms: 8000, offered_rps: 1 },
  { name: "d", kind: "drain", start_ms: 8000, end_ms: 9000, offered_rps: 0 },
];

function randomLog(seed: number, n: number): { requests: RequestRow[]; attempts: AttemptRow[] } {
  const r = seededUniform(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const gate = () => pick([true, true, true, false, null]);
  const requests: RequestRow[] = [];
  const attempts: AttemptRow[] = [];
  for (let i = 0; i < n; i++) {
    const t = Math.round(r() * 900) * 10; // 0–9000 ms on a 10 ms grid: ties with limits and stage edges happen
    const stage = STAGES.find((s) => t >= s.start_ms && t < s.end_ms)?.name ?? "d";
    const outcome = r() < 0.6 ? "ok" : pick(OUTCOMES);
    const id = `r${i}`;
    const ok = outcome === "ok";
    const ttft = Math.round(r() * 60) * 10;
    const e2e = ttft + Math.round(r() * 150) * 10;
    // Streaming recorded (1.1) or not (null, as a 1.0 log reads); a non-streamed or some unrecorded answers come as one
    // body (first = last token, no gap). Applicable gates: a random subset, or not recorded.
    const streamed = pick([true, true, false, null]);
    const wholeBody = streamed === false || (streamed === null && r() < 0.5);
    const applicable = r() < 0.25 ? null : GATE_ORDER.filter(() => r() < 0.6).join(",");
    requests.push(req({
      request_id: id,
      class: pick(["a", "b", "c"]),
      stage,
      scheduled_ms: t,
      outcome,
      first_token_ms: ok && r() < 0.95 ? t + ttft : null,
      completed_ms: ok ? t + e2e : null,
      output_valid: gate(),
      schema_ok: gate(),
      quality_ok: gate(),
      safety_ok: gate(),
      auth_ok: gate(),
      streamed,
      applicable_gates: applicable,
    }));
    if (outcome === "not_sent" || outcome === "client_shed") continue;
    const rounds = 1 + Math.floor(r() * 2);
    for (let round = 0; round < rounds; round++) {
      const tries = 1 + Math.floor(r() * 3);
      for (let a = 0; a < tries; a++) {
        const answered = r() < 0.7;
        const ft = t + ttft + round * 100 + a * 10;
        const span = wholeBody ? 0 : Math.round(r() * 200) * 5;
        attempts.push(att({
          request_id: id,
          round,
          attempt: a,
          sent_ms: t,
          first_token_ms: answered ? ft : null,
          last_token_ms: answered ? ft + span : null,
          output_tokens: answered ? Math.floor(r() * 12) : 0,
          itl_p50_ms: answered && span > 0 ? 5 : null,
          streamed,
        }));
      }
    }
  }
  return { requests, attempts };
}

/** The definitions in plain TypeScript, one request at a time: the oracle for the polars path. */
function reasonOf(q: RequestRow, tries: AttemptRow[], p: SloPolicy): FailureReason | null {
  if (q.outcome === "rejected" || q.outcome === "client_shed" || q.outcome === "not_sent" || q.outcome === "timeout") {
    return q.outcome;
  }
  if (q.outcome !== "ok") return "error";
  const slo = p.classes[q.class] ?? p.default;
  const e2e = q.completed_ms === null ? null : q.completed_ms - q.scheduled_ms;
  const lastRound = Math.max(...tries.map((a) => a.round));
  const answered = tries.filter((a) => a.round === lastRound && a.first_token_ms !== null && a.last_token_ms !== null)
    .sort((x, y) => x.attempt - y.attempt).at(-1);
  // Streaming: recorded, else (1.0) inferred from the answering attempt: one body = first = last, no gap, ≥ 2 tokens.
  const attStreamed = answered
    ? answered.streamed ?? !(answered.first_token_ms === answered.last_token_ms && answered.itl_p50_ms === null &&
      answered.output_tokens >= 2)
    : null;
  const observable = q.streamed ?? attStreamed ?? true;
  const ttft = !observable || q.first_token_ms === null ? null : q.first_token_ms - q.scheduled_ms;
  const tpot = observable && attStreamed && answered!.output_tokens > 1 &&
      answered!.last_token_ms! > answered!.first_token_ms!
    ? (answered!.last_token_ms! - answered!.first_token_ms!) / (answered!.output_tokens - 1)
    : null;
  if (slo.e2e_ms !== undefined && (e2e === null || e2e > slo.e2e_ms)) return "late_e2e";
  if (observable && slo.ttft_ms !== undefined && (ttft === null || ttft > slo.ttft_ms)) return "late_ttft";
  if (slo.tpot_ms !== undefined && tpot !== null && tpot > slo.tpot_ms) return "slow_tpot";
  for (const g of GATE_ORDER) if (slo.gates.includes(g) && applies(q, g) && q[g] !== true) return `gate_${g}`;
  return null;
}

/** A gate applies when listed in applicable_gates, or when applicability is not recorded (null). */
const applies = (q: RequestRow, g: string) => q.applicable_gates === null || q.applicable_gates.split(",").includes(g);

function oracleRow(qs: RequestRow[], reasons: Map<string, FailureReason | null>, secs: number, p: SloPolicy) {
  const failures = Object.fromEntries(FAILURE_ORDER.map((f) => [f, 0])) as Record<FailureReason, number>;
  let accepted = 0;
  for (const q of qs) {
    const why = reasons.get(q.request_id)!;
    if (why === null) accepted++;
    else failures[why]++;
  }
  const offered = qs.length;
  const sent = qs.filter((q) => q.outcome !== "not_sent" && q.outcome !== "client_shed").length;
  const completed = qs.filter((q) => q.outcome === "ok").length;
  const d = { offered, sent, completed }[p.denominator];
  return {
    offered,
    sent,
    completed,
    accepted,
    measurement_seconds: secs,
    accepted_goodput: accepted / secs,
    acceptance_rate: offered ? accepted / offered : null,
    slo_miss_rate: d ? (d - accepted) / d : null,
    failures,
  } satisfies GoodputRow;
}

const POLICIES: SloPolicy[] = [
  {
    denominator: "offered",
    window: { exclude_stage_kinds: ["warmup", "drain"] },
    classes: {
      a: { e2e_ms: 1000, ttft_ms: 300, tpot_ms: 20, gates: ["output_valid", "quality_ok"] },
      b: { e2e_ms: 800, gates: ["output_valid", "schema_ok", "quality_ok", "safety_ok", "auth_ok"] },
    },
    default: { ttft_ms: 400, tpot_ms: 40, gates: [] },
  },
  {
    denominator: "completed",
    window: { start_ms: 1000, end_ms: 7000 },
    classes: { c: { e2e_ms: 1200, tpot_ms: 10, gates: ["safety_ok"] } },
    default: { e2e_ms: 900, gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"] },
  },
  {
    denominator: "sent",
    window: { exclude_stage_kinds: [], include_stages: ["s", "d"] },
    classes: {},
    default: { e2e_ms: 1500, ttft_ms: 500, tpot_ms: 25, gates: ["auth_ok"] },
  },
];

Deno.test("goodput agrees exactly with a plain TypeScript computation on random logs", async (t) => {
  for (const seed of [1, 2, 3, 4]) {
    await t.step(`seed ${seed}`, async () => {
      const log = randomLog(seed, 300);
      const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(STAGES), log);
      const run = await loadRun(dir);
      const scanned = await scanRun(dir);
      const tries = Map.groupBy(log.attempts, (a) => a.request_id);
      for (const p of POLICIES) {
        const got = goodput(run, p);
        // The lazy path (scanRun, streaming engine) must give the same result, disclosure included.
        assert.deepEqual(goodput(scanned, p), got, `scanRun path, ${p.denominator}`);
        const w = p.window;
        const intervals: [number, number][] = "start_ms" in w
          ? [[w.start_ms, w.end_ms]]
          : STAGES.filter((s) => (!w.include_stages || w.include_stages.includes(s.name)))
            .filter((s) => !w.exclude_stage_kinds.includes(s.kind)).map((s) => [s.start_ms, s.end_ms]);
        const secs = intervals.reduce((x, [a, b]) => x + b - a, 0) / 1000;
        const inWin = log.requests.filter((q) => intervals.some(([a, b]) => q.scheduled_ms >= a && q.scheduled_ms < b));
        const reasons = new Map(inWin.map((q) => [q.request_id, reasonOf(q, tries.get(q.request_id) ?? [], p)]));
        assert.deepEqual(got.overall, oracleRow(inWin, reasons, secs, p), `overall, ${p.denominator}`);
        const classes = [...new Set(inWin.map((q) => q.class))].sort();
        assert.deepEqual(
          got.by_class,
          classes.map((c) => ({ class: c, ...oracleRow(inWin.filter((q) => q.class === c), reasons, secs, p) })),
        );
        for (const row of got.by_stage) {
          const sq = inWin.filter((q) => q.stage === row.stage);
          const st = STAGES.find((s) => s.name === row.stage)!;
          const ss = intervals.reduce(
            (x, [a, b]) => x + Math.max(0, Math.min(b, st.end_ms) - Math.max(a, st.start_ms)),
            0,
          );
          const want = oracleRow(sq, reasons, ss / 1000, p);
          assert.deepEqual(row, { stage: row.stage, ...want }, `stage ${row.stage}`);
        }
        assert.ok(got.overall.offered > 50 && got.overall.accepted > 0 && got.overall.accepted < got.overall.offered);
        // Gates passed as n/a: completed requests whose class requires the gate and whose case does not define it.
        for (const g of GATE_ORDER) {
          const na = inWin.filter((q) =>
            q.outcome === "ok" && (p.classes[q.class] ?? p.default).gates.includes(g) && !applies(q, g)
          ).length;
          assert.equal(got.disclosure.gates_not_applicable.overall[g], na, `n/a ${g}`);
        }
      }
    });
  }
});
