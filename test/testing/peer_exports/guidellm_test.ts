import assert from "node:assert/strict";
import { exportGuidellm } from "../../../testing/peer_exports/guidellm.ts";
import { epochMs, failureText, sentRows } from "../../../testing/peer_exports/_rows.ts";
import { parseGuidellm } from "../../../importers/sources/guidellm.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { abortedInBurst, exploreRows, neverSent } from "./_explore_rows.ts";

/** GuideLLM writes epoch seconds as floats: ~2.4e-7 s resolution at 1.8e9 s, so within 1 µs. */
const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-3, `${what}: ${a} vs ${b}`);

Deno.test("exportGuidellm() → parseGuidellm() gives back schedule, send, first token, completion and outcomes", async (t) => {
  const { requests: explore, epoch_iso } = await exploreRows();
  const base = explore[0]!;
  const rows = [
    ...explore,
    // in flight when the run stopped, during the burst
    abortedInBurst(explore),
    neverSent(base, { request_id: "x-shed", outcome: "client_shed" }),
  ];
  const epoch = epochMs(epoch_iso);
  const rates = {
    warmup: 2,
    "step-01": 4,
    "step-02": 6,
    "step-03": 8,
    "step-04": 10,
    "step-05": 12,
    settle: 3,
    burst: 20,
    recovery: 4,
  };
  for (const format of ["json", "yaml"] as const) {
    await t.step(format, () => {
      const text = exportGuidellm(rows, { epoch_iso, rates, format });
      const run = parseGuidellm(sourceText(`benchmarks.${format}`, text));
      const sent = sentRows(rows);
      // 527 explore rows + the aborted one were sent; the shed one never was
      assert.equal(run.requests.length, 528);
      // one benchmark per stage, in order of first send; constant strategies at the stage's offered rate
      assert.deepEqual(run.stages.map((s) => s.rate_rps), [2, 4, 6, 8, 10, 12, 3, 20, 4]);
      // 512 ok, 15 http_error (errored), 1 aborted (incomplete)
      const totals = run.stages.reduce(
        (a, s) => [a[0]! + s.totals.ok!, a[1]! + s.totals.error!, a[2]! + s.totals.incomplete!],
        [0, 0, 0],
      );
      assert.deepEqual(totals, [512, 15, 1]);
      const byId = new Map(sent.map((r) => [r.request_id, r]));
      for (const q of run.requests) {
        const r = byId.get(q.id)!;
        assert.equal(
          q.outcome,
          r.outcome === "ok" ? "ok" : r.outcome === "aborted" ? "incomplete" : "error",
          r.request_id,
        );
        close(q.scheduled_epoch_ms, epoch + r.scheduled_ms, `${r.request_id} scheduled`);
        close(q.sent_epoch_ms, epoch + r.first_sent_ms!, `${r.request_id} sent`);
        assert.deepEqual([q.input_tokens, q.output_tokens], [r.input_tokens, r.output_tokens]);
        if (r.first_token_ms !== null) {
          close(q.first_token_epoch_ms, epoch + r.first_token_ms, `${r.request_id} first token`);
        }
        if (q.outcome === "ok") {
          close(q.completed_epoch_ms, epoch + r.completed_ms!, `${r.request_id} completed`);
          close(q.e2e_ms, r.completed_ms! - r.first_sent_ms!, `${r.request_id} e2e`);
        } else {
          assert.equal(q.tool_status, failureText(r));
        }
      }
    });
  }
});
