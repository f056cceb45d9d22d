import assert from "node:assert/strict";
import type { RequestRow } from "../../../schema/events.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { readInferencePerf } from "../../../importers/sources/inference_perf.ts";
import { exportInferencePerf } from "../../../testing/peer_exports/inference_perf.ts";
import { endMs } from "../../../testing/peer_exports/_rows.ts";
import { exploreRows, neverSent } from "./_explore_rows.ts";
import { req } from "../../analysis/_fixture.ts";

const ORIGIN_S = 73_512.25; // a perf_counter reading: the export's clock has no epoch

Deno.test("exportInferencePerf() → readInferencePerf() gives back each sent request's times, outcome and tokens", async (t) => {
  const { requests, attempts } = await exploreRows();
  // One offered request that was never sent: inference-perf would never have recorded it.
  const rows = [...requests, neverSent(requests[0]!)];
  const run = readInferencePerf([
    sourceText(
      "per_request_lifecycle_metrics.json",
      exportInferencePerf(rows, { monotonic_origin_s: ORIGIN_S, attempts }),
    ),
  ]);
  await t.step("527 records of 528 offered rows: the never-sent one is dropped, as the tool drops it", () => {
    assert.equal(run.requests.length, 527);
    assert.equal(run.requests.filter((r) => r.outcome === "ok").length, 512);
    assert.equal(run.requests.filter((r) => r.outcome === "error").length, 15);
    assert.deepEqual(
      new Set(run.requests.filter((r) => r.outcome === "error").map((r) => r.http_status)),
      new Set([503]),
    );
  });
  await t.step("matched by send time, every time, TTFT, e2e and token count survives (to 1e-6 ms)", () => {
    const ours = [...requests].sort((a, b) => a.first_sent_ms! - b.first_sent_ms!);
    const back = [...run.requests].sort((a, b) => a.clock_ms!.sent! - b.clock_ms!.sent!);
    const close = (x: number | null | undefined, y: number, what: string) =>
      assert.ok(x != null && Math.abs(x - y) < 1e-6, `${what}: ${x} ≠ ${y}`);
    ours.forEach((r, i) => {
      const s = back[i]!;
      close(s.clock_ms!.sent! - ORIGIN_S * 1000, r.first_sent_ms!, `${r.request_id} sent`);
      close(s.e2e_ms, endMs(r, attempts) - r.first_sent_ms!, `${r.request_id} e2e`);
      assert.equal(s.outcome, r.outcome === "ok" ? "ok" : "error");
      assert.equal(s.input_tokens, r.input_tokens);
      if (r.outcome === "ok") {
        close(s.ttft_ms, r.first_token_ms! - r.first_sent_ms!, `${r.request_id} ttft`);
        assert.equal(s.output_tokens, r.output_tokens);
        assert.equal(s.token_source, "server_usage");
      } else {
        assert.equal(s.ttft_ms, null); // a failed record carries no response metrics
      }
    });
  });
  await t.step("no epoch crosses over: epoch times stay null and the lack says why", () => {
    assert.ok(run.requests.every((r) => r.sent_epoch_ms === null && r.completed_epoch_ms === null));
    assert.ok(run.lacks.some((l) => /perf_counter/.test(l.consequence)));
  });
});

Deno.test("exportInferencePerf() writes records in completion order with the tool's error labels", () => {
  const rows: RequestRow[] = [
    // Sent at 0, answered at 900 ms: ends last.
    req({
      request_id: "a",
      class: "qa",
      stage: "s",
      scheduled_ms: 0,
      first_token_ms: 100,
      completed_ms: 900,
      input_tokens: 5,
      output_tokens: 3,
    }),
    // Sent at 10, a 429 at 50 (no attempts given: it ends when sent).
    req({
      request_id: "b",
      class: "qa",
      stage: "s",
      scheduled_ms: 10,
      outcome: "rejected",
      http_status: 429,
      error_kind: "http_429",
      input_tokens: 5,
      output_tokens: 0,
    }),
  ];
  const records = JSON.parse(exportInferencePerf(rows, { monotonic_origin_s: 100 }));
  assert.deepEqual(records.map((r: { start_time: number }) => r.start_time), [100.01, 100]);
  assert.deepEqual(records[0].error, { error_type: "HTTP Error 429", error_msg: "rejected: http_429" });
  assert.equal(records[0].end_time, 100.01);
  // Two chunks: one token at 100.1 s, the other two at 100.9 s.
  assert.deepEqual(records[1].info.response_metrics.chunk_times, [100.1, 100.9]);
  assert.deepEqual(records[1].info.response_metrics.server_usage, {
    prompt_tokens: 5,
    completion_tokens: 3,
    total_tokens: 8,
  });
});
