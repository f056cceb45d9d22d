import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { replicaTime, runSpan, splitRunTime, union } from "../../../analysis/cost/gpu_time.ts";
import { resolveWindow } from "../../../analysis/goodput/policy.ts";
import type { Stage } from "../../../schema/plan.ts";
import { makeManifest } from "../_fixture.ts";

const STAGES: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 4_000, offered_rps: 1 },
  { name: "s1", kind: "steady", start_ms: 4_000, end_ms: 10_000, offered_rps: 2 },
  { name: "d1", kind: "drain", start_ms: 10_000, end_ms: 12_000, offered_rps: 0 },
  { name: "s2", kind: "steady", start_ms: 12_000, end_ms: 16_000, offered_rps: 4 },
];

Deno.test("union() merges overlapping and touching intervals and drops empty ones", () => {
  assert.deepEqual(union([[5, 8], [0, 2], [2, 3], [7, 9], [4, 4]]), [[0, 3], [5, 9]]);
});

Deno.test("runSpan(): ended_ms of a finished run, else the log's end, else the later of last stage and log", () => {
  const m = makeManifest(STAGES);
  const done = { ...m, result: { ...m.result, status: "complete" as const, ended_ms: 17_500 } };
  assert.deepEqual(runSpan(done, 16_200), { end_ms: 17_500, end_from: "run.json result.ended_ms" });
  const killed = { ...m, result: { ...m.result, status: "running" as const, ended_ms: 0 } };
  assert.equal(runSpan(killed, 9_300).end_ms, 9_300);
  assert.match(runSpan(killed, 9_300).end_from, /status running/);
  // ended_ms 0 (a hand-made log): the last stage ends at 16 s, the log at 15 s → 16 s; a log past it wins.
  assert.equal(runSpan(m, 15_000).end_ms, 16_000);
  assert.equal(runSpan(m, 16_400).end_ms, 16_400);
});

Deno.test("splitRunTime(): outside = the run minus every measured stage; share = window / measured seconds", () => {
  const span = { end_ms: 18_000, end_from: "test" };
  const levels = resolveWindow(STAGES, { exclude_stage_kinds: ["warmup", "drain"] });
  const s2 = resolveWindow(STAGES, { include_stages: ["s2"], exclude_stage_kinds: [] });
  const split = splitRunTime(span, s2, levels, STAGES);
  // Measured: s1 4–10 s + s2 12–16 s = 10 s; outside: 0–4 (warm) + 10–12 (d1) + 16–18 (after the last stage) = 8 s.
  assert.deepEqual(
    [split.window_seconds, split.measured_seconds, split.outside_seconds, split.share],
    [4, 10, 8, 0.4],
  );
  assert.deepEqual(split.outside_parts, ["warm (warmup)", "d1 (drain)", "after the last stage"]);
  // The ledger's own window as the measured one: share 1, the same outside time.
  assert.equal(splitRunTime(span, levels, levels, STAGES).share, 1);
});

Deno.test("replicaTime() places rows by t_ms: window, outside, another measured stage (skipped), after the end", () => {
  const span = { end_ms: 18_000, end_from: "test" };
  const levels = resolveWindow(STAGES, { exclude_stage_kinds: ["warmup", "drain"] });
  const s2 = resolveWindow(STAGES, { include_stages: ["s2"], exclude_stage_kinds: [] });
  const split = splitRunTime(span, s2, levels, STAGES);
  const server = pl.DataFrame({
    t_ms: [2_000, 5_000, 11_000, 13_000, 16_000, 19_000, 13_000],
    route: ["a", "a", "a", "a", "a", "a", "b"],
    running: [0, 4, 1, 1, 0, 0, 0],
    replicas: [1, 2, 3, 2, 1, 1, 7],
    replicas_warming: [1, 0, 0, 0, 0, 0, 0],
  });
  const t = replicaTime(server, split, (l) => l === "a");
  // Gaps 3, 6, 2, 3, 3 s (median 3 s for the first row). 2 s (warm, outside): 3 s × (idle 1, warming 1);
  // 5 s (s1: another level) skipped; 11 s (d1, outside): 6 s × (busy 1, idle 2); 13 s (s2): 2 s × (busy 1, idle 1);
  // 16 s (after s2, outside): 3 s × idle 1; 19 s is after the run's end. Route b is another target.
  assert.deepEqual(t.window, { busy: 2, idle: 2, warming: 0 });
  assert.deepEqual(t.outside, { busy: 6, idle: 3 + 12 + 3, warming: 3 });
  // Covered: 3 + 3 + 6 + 2 + 3 = 17 s of the 18 s run (the 19 s row is past the end).
  assert.deepEqual([t.covered_seconds, t.rows], [17, 4]);
});
