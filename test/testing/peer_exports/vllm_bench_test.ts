import assert from "node:assert/strict";
import { exportVllmBench } from "../../../testing/peer_exports/vllm_bench.ts";
import { answered, failureText, sentRows } from "../../../testing/peer_exports/_rows.ts";
import { parseVllmBench } from "../../../importers/sources/vllm_bench.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { exploreRows, neverSent, variant } from "./_explore_rows.ts";

/** vLLM writes seconds as Python floats: ms → s → ms loses at most float rounding. */
const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-6, `${what}: ${a} vs ${b}`);

Deno.test("exportVllmBench() → parseVllmBench() gives back our requests' times, outcomes and token counts", async (t) => {
  const { requests: explore, epoch_iso } = await exploreRows();
  const base = explore[0]!;
  const rows = [
    ...explore,
    // states the explore run lacks: never sent (vLLM has no record of it), answered but failing our quality gate (a
    // success to vLLM, which checks no content), a malformed answer (a failure to vLLM too)
    neverSent(base),
    variant(base, { request_id: "x-bad-quality", quality_ok: false }),
    variant(base, { request_id: "x-invalid", outcome: "invalid_response", error_kind: "malformed_sse" }),
  ];
  const sent = sentRows(rows);
  for (const form of ["latest", "v0.10", "legacy"] as const) {
    await t.step(`the ${form} form`, () => {
      const text = exportVllmBench(rows, { epoch_iso, request_rate: 4, form });
      const run = parseVllmBench(sourceText(`${form}.json`, text));
      // 527 explore rows + 2 variants are sent; the never-sent row has no vLLM record
      assert.equal(run.requests.length, 529);
      assert.equal(run.summary_only, false);
      // 512 ok + the bad-quality one succeed for vLLM; the 15 http_error rows and the malformed one fail
      assert.equal(run.requests.filter((q) => q.outcome === "ok").length, 513);
      assert.equal(run.stages[0]!.totals.ok, 513);
      assert.equal(run.stages[0]!.totals.error, form === "legacy" ? null : 16);
      assert.deepEqual(run.notes.filter((n) => /per-request arrays hold/.test(n)), []);
      for (const [i, q] of run.requests.entries()) {
        const r = sent[i]!;
        assert.equal(q.outcome === "ok", answered(r), r.request_id);
        assert.equal(q.input_tokens, r.input_tokens);
        if (form === "latest") close(q.sent_clock_ms, r.first_sent_ms!, `${r.request_id} sent`);
        if (q.outcome !== "ok") {
          assert.equal(q.tool_status, failureText(r));
          continue;
        }
        close(q.ttft_ms, r.first_token_ms! - r.first_sent_ms!, `${r.request_id} ttft`);
        close(q.e2e_ms, r.completed_ms! - r.first_sent_ms!, `${r.request_id} e2e`);
        assert.equal(q.output_tokens, r.output_tokens);
        assert.equal(q.itl_ms!.length, Math.max(r.output_tokens - 1, 0));
      }
    });
  }
  await t.step("the summary numbers are vLLM's over the successful requests", () => {
    const run = parseVllmBench(sourceText("s.json", exportVllmBench(explore, { epoch_iso })));
    const ok = explore.filter(answered);
    const ttfts = ok.map((r) => r.first_token_ms! - r.first_sent_ms!);
    const mean = ttfts.reduce((a, b) => a + b, 0) / ttfts.length;
    close(run.headlines.find((h) => h.key === "mean_ttft_ms")!.value, mean, "mean_ttft_ms");
    const duration = (Math.max(...explore.map((r) => r.completed_ms ?? r.first_sent_ms!)) -
      Math.min(...explore.map((r) => r.first_sent_ms!))) / 1000;
    close(run.headlines.find((h) => h.key === "request_throughput")!.value, 512 / duration, "request_throughput");
  });
});
