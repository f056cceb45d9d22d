/**
 * The knee over a production recording (knee over daily load): its levels are the stage windows at their observed
 * rates, said so first; the app is the client, so no level is excluded as client-limited however late the sends;
 * a recording still open leaves its last window out as cut.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { formatKnee } from "../../../analysis/knee/format_knee.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { limitFromKnee } from "../../../analysis/knee/limit.ts";
import { OBSERVED_LEVELS_RULE } from "../../../analysis/knee/verdicts.ts";
import { runVerdicts } from "../../../analysis/knee/verdicts.ts";
import { runWindow } from "../../../analysis/goodput/policy.ts";
import { PRODUCTION_CLIENT_RULE } from "../../../analysis/run/production_run.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { answered } from "../_fixture.ts";
import { productionManifest, windowStage, writeProduction } from "../_production_fixture.ts";
import { runCli } from "../../support/run_cli.ts";

const QUIET = { onWarning: () => {} };
const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: {},
  default: { e2e_ms: 1000, gates: [] },
};

/**
 * Five 10 s windows where the users offered 1, 2, 3, 4 and 5 actions a second (10, 20, 30, 40, 50 tasks); every
 * task's send is 500 ms after its action (the page and the app: longer than the 200 ms between arrivals at 5 /s,
 * which would make a runner's level client-limited). e2e is 300 ms up to 3 /s, then 1200 ms at 4 and 5 /s: late
 * under e2e ≤ 1000 ms, so acceptance falls from 1 to 0 between 3 and 4 /s.
 */
function recording(status: "closed" | "recording" = "closed"): string {
  const requests: RequestRow[] = [], attempts: AttemptRow[] = [];
  for (let w = 0; w < 5; w++) {
    const n = 10 * (w + 1);
    for (let i = 0; i < n; i++) {
      const t = w * 10_000 + (i * 10_000) / n;
      const x = answered(
        { request_id: `w${w}-${i}`, class: "chat", stage: `w000${w}`, scheduled_ms: t, send_lag_ms: 500 },
        w < 3 ? 300 : 1200,
      );
      requests.push({ ...x.request, first_sent_ms: t + 500 });
      attempts.push(x.attempt);
    }
  }
  const o = productionManifest().observation;
  const m = productionManifest({
    stages: [0, 1, 2, 3, 4].map((w) => windowStage(`w000${w}`, w * 10, (w + 1) * 10)),
    observation: status === "closed"
      ? { ...o, ended_ms: 50_000, ended_iso: "2026-05-01T08:00:50.000Z" }
      : { ...o, status, ended_ms: 45_000, ended_iso: null },
    workload: { name: "chat", classes: ["chat"] },
  });
  return writeProduction(join(Deno.makeTempDirSync(), "rec"), m, [
    { format: "parquet", requests, attempts, ...(status === "recording" ? { ended_ms: null } : {}) },
  ]);
}

Deno.test("the knee over a recording reads its windows at their observed rates and says so first", async () => {
  const run = await loadRun(recording(), QUIET);
  const k = knee([run], POLICY);
  assert.equal(k.level_basis, "observed");
  // 10, 20, 30, 40, 50 actions / 10 s.
  assert.deepEqual(k.levels.map((l) => l.planned_rps), [1, 2, 3, 4, 5]);
  assert.match(k.verdicts[0]!, /^PRODUCTION RECORDING of chat-app 1\.4\.2/);
  assert.ok(k.verdicts.includes(OBSERVED_LEVELS_RULE));
  // A 500 ms send lag at 5 /s (200 ms between arrivals) would exclude a runner's level: the app is the client.
  assert.deepEqual(k.excluded, []);
  assert.ok(!k.verdicts.some((v) => v.startsWith("CLIENT-LIMITED")));
  // Acceptance falls from 1 (3 /s) to 0 (4 /s): the first degrading level is 4 /s.
  assert.equal(k.first_degrading?.planned_rps, 4);
  const text = formatKnee(k, limitFromKnee(k, 0.2));
  assert.match(text, /load levels \(the recording's stage windows at their OBSERVED rates/);
  assert.match(text, /^observed rps\s+offered rps/m);
});

Deno.test("a recording's verdicts: no client-limited stage, the rule says why", async () => {
  const run = await loadRun(recording(), QUIET);
  const v = runVerdicts(run, runWindow(run, POLICY.window));
  assert.deepEqual(v.client.stages, []);
  assert.equal(v.client.rule, PRODUCTION_CLIENT_RULE);
  assert.equal(v.client.run_limited, null);
  assert.deepEqual(v.lines, v.source);
  assert.match(v.lines[0]!, /the app is the client, so no client-limited verdict/);
});

Deno.test("a recording still open: its last window, cut at the last flush, is left out of the knee", async () => {
  const run = await loadRun(recording("recording"), QUIET);
  const k = knee([run], POLICY);
  // w0004 ran 40–45 s of its 50 s: its 25 actions over 5 s observed 5 /s; cut, so excluded.
  assert.deepEqual(k.excluded.map((e) => [e.planned_rps, e.reasons]), [[5, ["cut"]]]);
  assert.match(k.excluded[0]!.why, /cut: the window ends inside w0004 \(at 45 s of 50 s\)/);
});

Deno.test("the knee CLI runs on a recording: levels observed, recovery and cold start, no retry analysis", async () => {
  const dir = recording();
  const slo = join(Deno.makeTempDirSync(), "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(POLICY));
  const cli = new URL("../../../analysis/cli/knee.ts", import.meta.url).pathname;
  const r = await runCli(cli, [dir, "--slo", slo]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^NOTE {4}PRODUCTION RECORDING of chat-app/m);
  assert.match(r.stdout, /OBSERVED LOAD LEVELS \(knee over daily load\)/);
  assert.match(r.stdout, /recovery, autoscaling, retries, cold start/);
  const j = JSON.parse((await runCli(cli, [dir, "--slo", slo, "--json"])).stdout);
  assert.equal(j.disclosure.level_basis, "observed");
  assert.equal(j.recovery[0].retries, undefined);
});
