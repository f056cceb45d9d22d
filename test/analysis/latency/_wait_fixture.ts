/**
 * The hand-computed recording of the wait breakdown's tests (wait_breakdown_test.ts states the arithmetic): five
 * tasks over two parts, Parquet and CSV.
 */
import { join } from "node:path";
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../../../schema/events.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, req } from "../_fixture.ts";
import { phase, productionManifest, toolRow, windowStage, writeProduction } from "../_production_fixture.ts";

/** chat: e2e ≤ 1000 ms; summarize (the default): e2e ≤ 750 ms; no gate, so acceptance is the deadline alone. */
export const WAIT_POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: { chat: { e2e_ms: 1000, gates: [] } },
  default: { e2e_ms: 750, gates: [] },
};

const done = (id: string, cls: string, s: number, sent: number, end: number): RequestRow =>
  req({ request_id: id, class: cls, stage: "w0000", scheduled_ms: s, first_sent_ms: sent, completed_ms: end });

/**
 * A (chat, no page record): wait 1000 → 2000 ms (1000 ms). Phases: service 1000–2000, queue 1000–1100. Retrieval
 * 1100–1200, tool search 1500–1650. Model calls: 1180 → failed, headers at 1230 (its end); 1250 → 1600.
 *   queue 100; retrieval 100; tools 150; model = [1180, 1230] ∪ [1250, 1600] minus retrieval and tools
 *   = [1200, 1230] 30 + [1250, 1500] 250 = 280; page not measured (phase rows, no page phase);
 *   other = 1000 − 100 − 100 − 150 − 280 = 370 ([1230, 1250] 20 + [1650, 2000] 350).
 * B (chat, page-joined): 3000 → 4000 (1000 ms). Phases: page 3000–3012, network_up 3010–3030 (its first 2 ms are
 * the page's: clock error), service 3030–3900, queue 3030–3080, network_down 3900–3940, render 3940–4000; model
 * 3100 → 3850.
 *   page 12; network 18 + 40 = 58; queue 50; model 750; render 60; other = 1000 − 12 − 58 − 50 − 750 − 60 = 70
 *   ([3080, 3100] 20 + [3850, 3900] 50).
 * C (summarize, no phase row): 5000 → 5800 (800 ms), sent at 5040; model 5040 → 5700; tool search 5100–5200.
 *   page = send lag 40; tools 100; model 660 − 100 = 560; other 100 ([5700, 5800]).
 * D (summarize, no phase row): 6000 → 6700 (700 ms), sent at 6200; retrieval 6050–6150; model 6200 → 6600.
 *   retrieval 100; page = send lag 200 minus the retrieval inside it = 100; model 400; other 100.
 * F (chat): an http_error: not completed, in neither population.
 * Accepted: A (1000 ≤ 1000), B (1000), D (700 ≤ 750); C (800 > 750) is late.
 */
export function tables(): { requests: RequestRow[]; attempts: AttemptRow[]; tools: ToolRow[]; phases: PhaseRow[] } {
  return {
    requests: [
      done("A", "chat", 1000, 1100, 2000),
      done("B", "chat", 3000, 3012, 4000),
      done("C", "summarize", 5000, 5040, 5800),
      done("D", "summarize", 6000, 6200, 6700),
      req({ request_id: "F", class: "chat", stage: "w0000", scheduled_ms: 7000, outcome: "http_error" }),
    ],
    attempts: [
      att({ request_id: "A", attempt: 0, sent_ms: 1180, headers_ms: 1230, http_status: 503, error_kind: "http_503" }),
      att({ request_id: "A", attempt: 1, sent_ms: 1250, completed_ms: 1600 }),
      att({ request_id: "B", sent_ms: 3100, completed_ms: 3850 }),
      att({ request_id: "C", sent_ms: 5040, completed_ms: 5700 }),
      att({ request_id: "D", sent_ms: 6200, completed_ms: 6600 }),
      att({ request_id: "F", sent_ms: 7000, headers_ms: 7100, http_status: 500 }),
    ],
    tools: [
      toolRow("A", "retrieval", 1100, 1200),
      toolRow("A", "search", 1500, 1650),
      toolRow("C", "search", 5100, 5200),
      toolRow("D", "retrieval", 6050, 6150),
    ],
    phases: [
      phase("A", "service", 1000, 2000),
      phase("A", "queue", 1000, 1100),
      phase("B", "page", 3000, 3012),
      phase("B", "network_up", 3010, 3030),
      phase("B", "service", 3030, 3900),
      phase("B", "queue", 3030, 3080),
      phase("B", "network_down", 3900, 3940),
      phase("B", "render", 3940, 4000),
    ],
  };
}

/** The recording: A and B in a Parquet part, C, D and F in a CSV part (C and D's part holds no phases file). */
export function waitRecording(): string {
  const t = tables();
  const inPart = <T extends { request_id: string }>(rows: T[], ids: string[]) =>
    rows.filter((r) => ids.includes(r.request_id));
  const first = ["A", "B"], second = ["C", "D", "F"];
  return writeProduction(join(Deno.makeTempDirSync(), "rec"), productionManifest(), [
    {
      format: "parquet",
      requests: inPart(t.requests, first),
      attempts: inPart(t.attempts, first),
      tools: inPart(t.tools, first),
      phases: inPart(t.phases, first),
    },
    {
      format: "csv",
      ended_ms: 20_000,
      requests: inPart(t.requests, second),
      attempts: inPart(t.attempts, second),
      tools: inPart(t.tools, second),
      omit: ["phases"],
    },
  ]);
}

/** The random recording's policy: chat e2e ≤ 600 ms, any other class ≤ 700 ms, no gate. */
export const RANDOM_POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: { chat: { e2e_ms: 600, gates: [] } },
  default: { e2e_ms: 700, gates: [] },
};

/** mulberry32: a small seeded generator, so the recording is the same on every run. */
function rng(seed: number): (lo: number, hi: number) => number {
  let a = seed;
  return (lo, hi) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return lo + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * (hi - lo + 1));
  };
}

export interface Tables {
  requests: RequestRow[];
  attempts: AttemptRow[];
  tools: ToolRow[];
  phases: PhaseRow[];
}

/** 80 tasks, whole milliseconds; about a third with a page record, a third with service phases only, a third none. */
export function randomTables(): Tables {
  const r = rng(15);
  const t: Tables = { requests: [], attempts: [], tools: [], phases: [] };
  for (let i = 0; i < 80; i++) {
    const id = `t${i}`, s = i * 1000 + r(0, 50), e = s + r(150, 900), sent = s + r(0, 120);
    const ok = r(0, 9) > 0; // one in ten fails: in neither population
    t.requests.push(req({
      request_id: id,
      class: r(0, 1) ? "chat" : "summarize",
      stage: "w0000",
      scheduled_ms: s,
      first_sent_ms: sent,
      first_token_ms: ok ? Math.min(e, sent + 50 + (i % 7) * 20) : null,
      completed_ms: ok ? e : null,
      outcome: ok ? "ok" : "http_error",
    }));
    const kind = r(0, 2); // 0: page record, 1: service phases only, 2: no phase row
    if (kind === 0) {
      const p = s + r(0, 30);
      t.phases.push(phase(id, "page", s, p), phase(id, "network_up", p - r(0, 5), p + r(-3, 20)));
      t.phases.push(phase(id, "network_down", e - r(10, 60), e - r(0, 40)), phase(id, "render", e - r(0, 30), e));
    }
    if (kind <= 1) {
      t.phases.push(phase(id, "service", s + r(0, 40), e - r(0, 40)));
      if (r(0, 1)) t.phases.push(phase(id, "queue", s + r(0, 60), s + r(40, 200)));
    }
    for (let k = r(0, 2); k > 0; k--) {
      const a = s + r(-20, 500);
      t.tools.push(toolRow(id, r(0, 1) ? "retrieval" : "search", a, a + r(0, 150)));
    }
    for (let k = r(0, 3); k > 0; k--) {
      const a = s + r(0, 600), len = r(0, 400);
      const failed = r(0, 3) === 0;
      t.attempts.push(att({
        request_id: id,
        attempt: k,
        sent_ms: a,
        headers_ms: a + Math.min(len, 30),
        completed_ms: failed ? null : a + len,
        last_token_ms: failed && r(0, 1) ? a + len : null,
      }));
    }
  }
  return t;
}

/** The random tasks written as a recording of one 80 s window: tasks t0–t39 in a Parquet part, the rest in CSV. */
export function randomRecording(rows: Tables = randomTables()): string {
  const half = (x: { request_id: string }, part: number) => (Number(x.request_id.slice(1)) < 40 ? 0 : 1) === part;
  const part = (p: number) => ({
    requests: rows.requests.filter((x) => half(x, p)),
    attempts: rows.attempts.filter((x) => half(x, p)),
    tools: rows.tools.filter((x) => half(x, p)),
    phases: rows.phases.filter((x) => half(x, p)),
  });
  const m = productionManifest({
    observation: { ...productionManifest().observation, ended_ms: 80_000, ended_iso: "2026-05-01T08:01:20.000Z" },
    stages: [windowStage("w0000", 0, 80)],
  });
  return writeProduction(join(Deno.makeTempDirSync(), "rec"), m, [
    { format: "parquet", ...part(0) },
    { format: "csv", ended_ms: 80_000, ...part(1) },
  ]);
}
