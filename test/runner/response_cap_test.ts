import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../runner/attempt.ts";
import type { HttpClientKind } from "../../runner/http/mod.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { type FaultMode, OVERSIZED_BYTES, startFaultServer } from "../support/fault_server.ts";
import { runCli } from "../support/run_cli.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** Runs 3 requests (10 rps for 0.3 s) against one mode and reads the log back. */
async function runAgainst(mode: FaultMode, o: { stream: boolean; client: HttpClientKind; maxBytes?: number }) {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 2 });
  try {
    const t0 = performance.now();
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()], { qa: o.stream }),
      plan: constantPlan(dir, 10, 0.3),
      target: `${srv.url}/${mode}`,
      out: join(dir, "out"),
      formats: ["csv"],
      retryFile: writeJson(dir, "retry.json", { max_attempts: 3, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      // Long enough that only the cap can end an endless answer within the test's bound below.
      timeoutsFile: writeJson(dir, "timeouts.json", { attempt_ms: 20_000, request_ms: 30_000, idle_ms: 20_000 }),
      httpClient: o.client,
      progress: false,
      serverTimeline: false,
      ...(o.maxBytes ? { maxResponseBytes: o.maxBytes } : {}),
    });
    const elapsedMs = performance.now() - t0;
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    const chatCalls = srv.requests.filter((r) => r.target.includes("/chat/completions")).length;
    return { requests, attempts, manifest, chatCalls, elapsedMs, sentBody: srv.requests[0]?.body ?? "" };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

const OVERSIZED: [FaultMode, boolean][] = [
  ["oversized-json", false],
  ["oversized-length", false],
  ["oversized-length", true],
  ["endless-sse-line", true],
];

Deno.test("an answer over the response cap is aborted at once and recorded response_too_large, never retried", async (t) => {
  // The fault server's oversized body is one MiB over the default cap: 9 MiB > 8 MiB.
  assert.equal(OVERSIZED_BYTES - DEFAULT_MAX_RESPONSE_BYTES, 1024 * 1024);
  for (const client of ["raw", "fetch"] as const) {
    for (const [mode, stream] of OVERSIZED) {
      await t.step(`${client} ${mode} ${stream ? "streamed" : "unstreamed"}`, async () => {
        const { requests, attempts, manifest, chatCalls, elapsedMs } = await runAgainst(mode, { stream, client });
        assert.deepEqual(requests.map((r) => r.request_id).sort(), ["r0000000", "r0000001", "r0000002"]);
        for (const r of requests) {
          assert.equal(r.outcome, "invalid_response", `${r.request_id}: ${r.error_kind}`);
          assert.equal(r.error_kind, "response_too_large");
          assert.equal(r.attempts, 1, "an oversized answer is not retried");
          assert.equal(r.http_status, 200);
        }
        assert.equal(attempts.length, 3, "one attempt row per call");
        assert.equal(chatCalls, 3, "the server received exactly the calls the log holds");
        assert.ok(attempts.every((a) => a.error_kind === "response_too_large" && a.completed_ms === null));
        // An endless answer ends by the cap, not by the 20 s attempt timeout.
        assert.ok(elapsedMs < 15_000, `run took ${elapsedMs} ms`);
        assert.equal(manifest.runner.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES);
        assert.equal(manifest.result.status, "complete");
        assert.match(manifest.files["requests.csv"] ?? "", /^[0-9a-f]{64}$/);
      });
    }
  }
});

Deno.test("the response cap counts body bytes: an answer at the cap is read, one byte over is refused", async (t) => {
  // The length of the ok-json answer to the runner's own request body: one run records that body, a replay measures it.
  const first = await runAgainst("ok-json", { stream: false, client: "raw" });
  assert.ok(first.requests.every((r) => r.outcome === "ok"));
  const srv = await startFaultServer({ tokens: 2 });
  const body = await fetch(`${srv.url}/ok-json/v1/chat/completions`, { method: "POST", body: first.sentBody })
    .then((r) => r.arrayBuffer());
  await srv.close();
  for (const client of ["raw", "fetch"] as const) {
    await t.step(`${client}: cap = body length → ok`, async () => {
      const { requests, manifest } = await runAgainst("ok-json", { stream: false, client, maxBytes: body.byteLength });
      assert.ok(requests.every((r) => r.outcome === "ok"), requests.map((r) => r.error_kind).join());
      assert.equal(manifest.runner.max_response_bytes, body.byteLength);
    });
    await t.step(`${client}: cap = body length − 1 → response_too_large`, async () => {
      const { requests } = await runAgainst("ok-json", { stream: false, client, maxBytes: body.byteLength - 1 });
      assert.ok(requests.every((r) => r.error_kind === "response_too_large"), requests.map((r) => r.error_kind).join());
    });
  }
});

Deno.test("--max-response-bytes is checked at the flag check (positive safe integer)", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const out = join(dir, "out");
    const r = await runCli("runner/cli/run.ts", [
      ...["--workload", writeWorkload(dir, [tinyCase()]), "--plan", constantPlan(dir, 5, 1)],
      ...["--target", "http://127.0.0.1:9", "--out", out, "--no-progress", "--max-response-bytes", "0"],
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--max-response-bytes: expected an integer ≥ 1, got "0"/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    const big = await runCli("runner/cli/run.ts", [
      ...["--workload", writeWorkload(dir, [tinyCase()]), "--plan", constantPlan(dir, 5, 1)],
      ...["--target", "http://127.0.0.1:9", "--out", out, "--no-progress", "--max-response-bytes", "1e20"],
    ]);
    assert.equal(big.code, 2);
    assert.match(big.stderr, /--max-response-bytes: expected at most 9007199254740991, got "1e20"/);
    assert.throws(() => Deno.statSync(out), Deno.errors.NotFound, "nothing written");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
