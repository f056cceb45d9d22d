import type { Stage } from "../../schema/plan.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { att, makeManifest, req, type RunTables } from "./_fixture.ts";
import type { AttemptRow, RequestRow } from "../../schema/events.ts";

/**
 * The hand-built run. Stages: warm (warmup 0–10 s), low (steady 10–20 s),
 * peak (burst 20–30 s), drain (30–35 s). The policy excludes warmup and
 * drain, so the window is low + peak = 20 s.
 *
 * Class SLOs: qa e2e ≤ 1000, TTFT ≤ 300, TPOT ≤ 50, gates output_valid,
 * quality_ok, safety_ok, auth_ok; json e2e ≤ 2000 (no TTFT/TPOT limit),
 * gates output_valid, schema_ok, quality_ok; any other class: the default,
 * e2e ≤ 5000, gates output_valid, quality_ok, safety_ok, auth_ok.
 */
export const STAGES: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 10_000, offered_rps: 1 },
  { name: "low", kind: "steady", start_ms: 10_000, end_ms: 20_000, offered_rps: 1.4 },
  { name: "peak", kind: "burst", start_ms: 20_000, end_ms: 30_000, offered_rps: 0.9 },
  { name: "drain", kind: "drain", start_ms: 30_000, end_ms: 35_000, offered_rps: 0 },
];

/** The fixture's SLO policy. */
export const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: ["warmup", "drain"] },
  classes: {
    qa: { e2e_ms: 1000, ttft_ms: 300, tpot_ms: 50, gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"] },
    json: { e2e_ms: 2000, gates: ["output_valid", "schema_ok", "quality_ok"] },
  },
  default: { e2e_ms: 5000, gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"] },
};

/** An ok request answered in one attempt: TTFT, e2e, and the attempt's token span over `out` tokens. */
function ok(
  id: string,
  cls: string,
  stage: string,
  t: number,
  o: { ttft: number; e2e: number; span: number; out: number },
  over: Partial<RequestRow> = {},
): { r: RequestRow; a: AttemptRow[] } {
  const r = req({
    request_id: id,
    class: cls,
    stage,
    scheduled_ms: t,
    first_token_ms: t + o.ttft,
    completed_ms: t + o.e2e,
    output_tokens: o.out,
    ...over,
  });
  const a = att({
    request_id: id,
    sent_ms: t,
    first_token_ms: t + o.ttft,
    last_token_ms: t + o.ttft + o.span,
    completed_ms: t + o.ttft + o.span,
    output_tokens: o.out,
  });
  return { r, a: [a] };
}

function failed(id: string, cls: string, stage: string, t: number, outcome: RequestRow["outcome"]) {
  const r = req({
    request_id: id,
    class: cls,
    stage,
    scheduled_ms: t,
    outcome,
    http_status: null,
    output_valid: null,
    quality_ok: null,
    safety_ok: null,
    auth_ok: null,
    output_tokens: 0,
  });
  const a = outcome === "not_sent" || outcome === "client_shed" ? [] : [att({ request_id: id, sent_ms: t })];
  return { r, a };
}

const good = { ttft: 200, e2e: 800, span: 500, out: 11 }; // TPOT = 500 / 10 = 50 (= the limit: passes)

/** The fixture's rows: each comment gives the expected first failing reason. */
export function fixtureTables(): RunTables {
  const parts = [
    ok("w1", "qa", "warm", 5_000, good), // out of the window (warmup)
    ok("w2", "qa", "drain", 30_000, good), // out: 30000 is the end of peak (half-open) and in drain
    ok("q1", "qa", "low", 10_000, good), // accepted
    failed("q2", "qa", "low", 10_500, "rejected"), // rejected
    failed("q3", "qa", "low", 11_000, "client_shed"), // client_shed (not sent)
    failed("q4", "qa", "low", 11_500, "not_sent"), // not_sent (not sent)
    failed("q5", "qa", "low", 12_000, "timeout"), // timeout
    failed("q6", "qa", "low", 12_500, "http_error"), // error
    failed("q7", "qa", "low", 13_000, "transport_error"), // error
    failed("q8", "qa", "low", 13_500, "invalid_response"), // error
    failed("q9", "qa", "low", 14_000, "aborted"), // error
    ok("q10", "qa", "peak", 20_000, { ...good, ttft: 400, e2e: 1200 }), // late_e2e (1200 > 1000; TTFT also late)
    ok("q11", "qa", "peak", 20_500, { ...good, ttft: 400, e2e: 900 }), // late_ttft (400 > 300)
    ok("q12", "qa", "peak", 21_000, { ...good, span: 600 }, { quality_ok: false }), // slow_tpot (600/10 = 60 > 50)
    ok("q13", "qa", "peak", 21_500, good, { output_valid: null }), // gate_output_valid (null fails)
    ok("q14", "qa", "low", 14_500, { ...good, span: 900, out: 1 }), // accepted: 1 token, TPOT undefined
    ok("q16", "qa", "low", 15_500, good, { safety_ok: false }), // gate_safety_ok
    ok("q17", "qa", "low", 16_000, good, { auth_ok: null }), // gate_auth_ok
    ok("j1", "json", "peak", 22_000, good, { schema_ok: false }), // gate_schema_ok
    ok("j2", "json", "peak", 22_500, { ttft: 1500, e2e: 1900, span: 0, out: 40 }, { schema_ok: true }), // accepted
    ok("j3", "json", "peak", 23_000, good, { schema_ok: true, quality_ok: false }), // gate_quality_ok
    ok("j4", "json", "peak", 23_500, { ...good, e2e: 2500 }, { schema_ok: null }), // late_e2e (2500 > 2000)
    ok("o1", "other", "peak", 24_000, { ttft: 3000, e2e: 4000, span: 900, out: 2 }, { schema_ok: false }), // accepted
  ];
  const requests = parts.map((p) => p.r);
  const attempts = parts.flatMap((p) => p.a);
  // q15: retried (a 500, then answered), counted once: accepted.
  requests.push(req({
    request_id: "q15",
    class: "qa",
    stage: "low",
    scheduled_ms: 15_000,
    first_token_ms: 15_250,
    completed_ms: 15_900,
    attempts: 2,
  }));
  attempts.push(
    att({ request_id: "q15", sent_ms: 15_000, http_status: 500, error_kind: "http_500", retry_reason: "http_500" }),
    att({
      request_id: "q15",
      attempt: 1,
      sent_ms: 15_100,
      first_token_ms: 15_250,
      last_token_ms: 15_700,
      output_tokens: 10,
    }),
  );
  // q18: two rounds; round 0's TPOT is 100/2 = 50 (passes) but TPOT is taken from the last round: 600/10 = 60.
  requests.push(req({
    request_id: "q18",
    class: "qa",
    stage: "low",
    scheduled_ms: 16_500,
    first_token_ms: 16_600,
    completed_ms: 17_400,
    rounds: 2,
    tool_calls: 1,
  }));
  attempts.push(
    att({ request_id: "q18", sent_ms: 16_500, first_token_ms: 16_600, last_token_ms: 16_700, output_tokens: 3 }),
    att({
      request_id: "q18",
      round: 1,
      sent_ms: 16_750,
      first_token_ms: 16_780,
      last_token_ms: 17_380,
      output_tokens: 11,
    }),
  );
  return { requests, attempts, tools: [] };
}

/** The fixture run's manifest. */
export const fixtureManifest = () => makeManifest(STAGES);
