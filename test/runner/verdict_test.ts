import assert from "node:assert/strict";
import { join } from "node:path";
import type { Outcome } from "../../schema/events.ts";
import { RequestTally } from "../../runner/request_tally.ts";
import { EXIT_NO_SUCCESS, runVerdict } from "../../runner/verdict.ts";
import { runCli } from "../support/run_cli.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The summary finalisation keeps of requests with these outcomes, in this order. */
function summaryOf(outcomes: Outcome[]) {
  const t = new RequestTally();
  t.add(outcomes.map((outcome) => ({ stage: "s", outcome, error_kind: null, send_lag_ms: null })));
  return t.summary();
}

Deno.test("runVerdict: zero ok outcomes among the offered requests is exit 3, with the counts that say why", () => {
  const v = runVerdict(summaryOf(["http_error", "rejected", "http_error"]));
  assert.equal(v.exitCode, EXIT_NO_SUCCESS);
  assert.equal(v.exitCode, 3);
  // 3 offered, 0 ok: http_error 2, rejected 1, in order of first appearance.
  assert.equal(v.message, "no request succeeded: 0 of 3 offered requests ended ok (http_error 2, rejected 1)");
});

Deno.test("runVerdict: one ok request is enough for exit 0; no offered request is not judged", () => {
  assert.deepEqual(runVerdict(summaryOf(["timeout", "ok"])), { exitCode: 0, message: null });
  assert.deepEqual(runVerdict(summaryOf([])), { exitCode: 0, message: null });
});

/** Runs `deno task run`'s script on 3 requests (10 rps × 0.3 s) against `target`. */
async function runCliAgainst(target: string, extra: string[] = []) {
  const dir = Deno.makeTempDirSync();
  const workload = writeWorkload(dir, [tinyCase()], { qa: true });
  const retry = writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20 });
  const timeouts = writeJson(dir, "timeouts.json", { attempt_ms: 500, request_ms: 1500, idle_ms: 400 });
  const args = ["--workload", workload, "--plan", constantPlan(dir, 10, 0.3), "--target", target, "--out", dir];
  const started = Date.now();
  const r = await runCli(join(ROOT, "runner/cli/run.ts"), [
    ...args,
    "--run-id",
    "r",
    "--format",
    "csv",
    "--retry",
    retry,
    "--timeouts",
    timeouts,
    "--no-progress",
    ...extra,
  ]);
  const manifest = JSON.parse(Deno.readTextFileSync(join(dir, "r", "run.json")));
  Deno.removeSync(dir, { recursive: true });
  return { ...r, manifest, seconds: (Date.now() - started) / 1000 };
}

Deno.test("deno task run exits 3 and says why when nothing listens at the target, and still finalises the run", async () => {
  // Take a free port and close it: every connection is refused.
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  // A deliberate failure test: the pre-flight would stop the run before it starts (test/runner/preflight_test.ts).
  const r = await runCliAgainst(`http://127.0.0.1:${port}/v1/chat/completions`, ["--no-preflight"]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /no request succeeded: 0 of 3 offered requests ended ok \(transport_error 3\)/);
  assert.match(r.stderr, /no server timeline/, "the dead target did not announce a timeline");
  assert.equal(r.manifest.result.status, "complete");
  assert.equal(r.manifest.result.offered, 3);
  assert.ok(r.manifest.files["requests.csv"], "finalised: files hashed");
  // No ~11.5 s retry loop against /sim/timeline of a target that never announced one.
  assert.ok(r.seconds < 9, `took ${r.seconds} s`);
});

Deno.test("deno task run exits 3 against a target that answers HTML to chat and 500 to /sim/timeline, asking for the timeline once", async () => {
  const srv = await startFaultServer({ pick: (req) => req.target.startsWith("/sim/timeline") ? "500" : undefined });
  try {
    const r = await runCliAgainst(`${srv.url}/wrong-content-type`, ["--no-preflight"]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /no request succeeded: 0 of 3 offered requests ended ok \(invalid_response 3\)/);
    assert.match(r.stderr, /no server timeline: no \/sim\/timeline \(HTTP 500\); GET \/metrics/);
    assert.equal(
      srv.requests.filter((q) => q.target.startsWith("/sim/timeline")).length,
      1,
      "asked once, before the run; never at the end",
    );
    assert.equal(r.manifest.result.status, "complete");
  } finally {
    await srv.close();
  }
});

Deno.test("deno task run exits 0 when at least one request succeeded", async () => {
  const srv = await startFaultServer({ tokens: 4 });
  try {
    const r = await runCliAgainst(`${srv.url}/ok-sse`);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /no request succeeded/);
  } finally {
    await srv.close();
  }
});
