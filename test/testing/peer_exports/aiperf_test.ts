import assert from "node:assert/strict";
import { exportAiperf } from "../../../testing/peer_exports/aiperf.ts";
import { epochMs, failureText, sentRows } from "../../../testing/peer_exports/_rows.ts";
import { parseAiperf } from "../../../importers/sources/aiperf.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { abortedInBurst, exploreRows } from "./_explore_rows.ts";

/** AIPerf writes epoch ns; at 1.8e18 a float64 holds them to 256 ns, so within 1 µs. */
const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-3, `${what}: ${a} vs ${b}`);

Deno.test("exportAiperf() → parseAiperf() gives back send, first token, completion, outcomes and tokens", async (t) => {
  const { requests: explore, epoch_iso } = await exploreRows();
  const rows = [
    ...explore,
    abortedInBurst(explore),
  ];
  const epoch = epochMs(epoch_iso);
  const sent = sentRows(rows);
  for (const form of ["0.8", "early"] as const) {
    await t.step(`the ${form} form`, () => {
      const text = exportAiperf(rows, { epoch_iso, warmup_stages: ["warmup"], form });
      const run = parseAiperf([sourceText("profile_export.jsonl", text)]);
      assert.equal(run.requests.length, 528);
      // 512 ok, 15 http_error (errors, HTTP 503), 1 aborted (cancelled); the 8 warmup rows in AIPerf's warmup phase
      const count = (o: string) => run.requests.filter((q) => q.outcome === o).length;
      assert.deepEqual([count("ok"), count("error"), count("cancelled")], [512, 15, 1]);
      assert.equal(run.requests.filter((q) => q.stage === "warmup").length, 8);
      for (const [i, q] of run.requests.entries()) {
        const r = sent[i]!;
        assert.equal(q.id, r.request_id);
        close(q.sent_epoch_ms, epoch + r.first_sent_ms!, `${r.request_id} sent`);
        if (q.outcome !== "ok") {
          assert.match(q.tool_status!, new RegExp(failureText(r)));
          assert.equal(q.http_status, r.outcome === "http_error" ? r.http_status : null);
          continue;
        }
        close(q.first_token_epoch_ms, epoch + r.first_token_ms!, `${r.request_id} first token`);
        close(q.completed_epoch_ms, epoch + r.completed_ms!, `${r.request_id} completed`);
        assert.deepEqual([q.input_tokens, q.output_tokens], [r.input_tokens, r.output_tokens]);
        assert.equal(q.token_source, form === "0.8" ? "server_usage" : "tool_tokenizer");
        assert.equal(q.itl_ms?.length ?? 0, Math.max(r.output_tokens - 1, 0));
      }
    });
  }
});
