import assert from "node:assert/strict";
import { join } from "node:path";
import { classify, FAILURE_ORDER, type FailureReason } from "../../../analysis/goodput/classify.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { resolveWindow } from "../../../analysis/goodput/policy.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { type AttemptRow, type Outcome, OUTCOMES, type RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";
import { hosted, sheetA } from "../cost/ledger_fixture.ts";

/** One stage of 10 s, one class held to e2e ≤ 1000 ms and the gates output_valid and quality_ok. */
const STAGES: Stage[] = [{ name: "s", kind: "steady", start_ms: 0, end_ms: 10_000, offered_rps: 1.1 }];
const POLICY = SloPolicy.parse({
  default: { e2e_ms: 1000, gates: ["output_valid", "quality_ok"] },
  denominator: "sent",
});

const NO_ANSWER = {
  first_token_ms: null,
  completed_ms: null,
  output_valid: null,
  quality_ok: null,
  safety_ok: null,
  auth_ok: null,
  output_tokens: 0,
} as const;

/** A request of outcome `outcome` scheduled at `t`, with its attempt unless it was never sent. */
function row(id: string, t: number, outcome: Outcome, over: Partial<RequestRow> = {}) {
  const sent = outcome !== "not_sent" && outcome !== "client_shed";
  const r = req({
    request_id: id,
    class: "qa",
    stage: "s",
    scheduled_ms: t,
    outcome,
    ...(outcome === "ok" ? { first_token_ms: t + 10, completed_ms: t + 500 } : NO_ANSWER),
    ...(sent ? {} : { first_sent_ms: null, send_lag_ms: null, attempts: 0, rounds: 0, http_status: null }),
    ...over,
  });
  const a: AttemptRow[] = sent
    ? [att({ request_id: id, sent_ms: t, first_token_ms: r.first_token_ms, completed_ms: r.completed_ms })]
    : [];
  return { r, a };
}

/** Every outcome once (and ok three times), with its expected sent, completed and first failing reason. */
const CASES: [ReturnType<typeof row>, { sent: boolean; completed: boolean; reason: FailureReason | null }][] = [
  [row("ok-1", 0, "ok"), { sent: true, completed: true, reason: null }],
  [row("ok-late", 500, "ok", { completed_ms: 500 + 1500 }), { sent: true, completed: true, reason: "late_e2e" }],
  [row("ok-bad", 1000, "ok", { quality_ok: false }), { sent: true, completed: true, reason: "gate_quality_ok" }],
  [row("http", 1500, "http_error", { http_status: 500 }), { sent: true, completed: false, reason: "error" }],
  [row("rej", 2000, "rejected", { http_status: 429 }), { sent: true, completed: false, reason: "rejected" }],
  [row("shed", 2500, "client_shed"), { sent: false, completed: false, reason: "client_shed" }],
  [row("unsent", 3000, "not_sent"), { sent: false, completed: false, reason: "not_sent" }],
  [row("slow", 3500, "timeout", { http_status: null }), { sent: true, completed: false, reason: "timeout" }],
  [row("conn", 4000, "transport_error", { http_status: null }), { sent: true, completed: false, reason: "error" }],
  [row("junk", 4500, "invalid_response"), { sent: true, completed: false, reason: "error" }],
  [row("abort", 5000, "aborted", { http_status: null }), { sent: true, completed: false, reason: "error" }],
];

function fixtureDir(): string {
  return writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(STAGES), {
    requests: CASES.map(([c]) => c.r),
    attempts: CASES.flatMap(([c]) => c.a),
  });
}

Deno.test("sent and completed have one definition, from the outcome, in every count", async (t) => {
  const dir = fixtureDir();
  const run = await loadRun(dir, { onWarning: () => {} });

  await t.step("the fixture has every outcome", () => {
    assert.deepEqual([...new Set(CASES.map(([c]) => c.r.outcome))].sort(), [...OUTCOMES].sort());
  });

  await t.step("classify(): sent unless not_sent or client_shed; completed only when ok", () => {
    const rows = classify(run, POLICY, resolveWindow(run.manifest.stages, POLICY.window)).toRecords();
    assert.deepEqual(
      rows.map((r) => [r.request_id, r.sent, r.completed, r.reason]),
      CASES.map(([c, e]) => [c.r.request_id, e.sent, e.completed, e.reason]),
    );
  });

  // 11 offered; sent = 11 − 2 (shed, unsent) = 9; completed = the 3 ok; accepted = ok-1 only = 1.
  // Denominator sent: miss = (9 − 1) / 9; goodput 1 / 10 s = 0.1 /s; acceptance 1 / 11.
  const failures = Object.fromEntries(FAILURE_ORDER.map((f) => [f, 0])) as Record<FailureReason, number>;
  Object.assign(failures, {
    rejected: 1,
    client_shed: 1,
    not_sent: 1,
    timeout: 1,
    error: 4, // http_error, transport_error, invalid_response, aborted
    late_e2e: 1,
    gate_quality_ok: 1,
  });
  const overall = {
    offered: 11,
    sent: 9,
    completed: 3,
    accepted: 1,
    measurement_seconds: 10,
    accepted_goodput: 0.1,
    acceptance_rate: 1 / 11,
    slo_miss_rate: 8 / 9,
    failures,
  };

  await t.step("goodput() of the loaded run: offered 11, sent 9, completed 3, accepted 1", () => {
    assert.deepEqual(goodput(run, POLICY).overall, overall);
  });

  await t.step("goodput() of the scanned run counts the same", async () => {
    assert.deepEqual(goodput(await scanRun(dir, { onWarning: () => {} }), POLICY).overall, overall);
  });

  await t.step("ledger(): the same counts, and the naive per-request figure divides by the 9 sent", () => {
    const prices = sheetA({
      routes: { default: hosted(1, null, 1, { rejected: false, failed: false, cancelled: false }) },
    });
    const l = ledger(run, POLICY, prices);
    const o = l.overall;
    assert.deepEqual([o.offered, o.sent, o.completed, o.accepted], [11, 9, 3, 1]);
    assert.equal(o.naive.sent, 9);
  });
});
