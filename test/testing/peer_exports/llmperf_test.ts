import assert from "node:assert/strict";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { readLlmperf } from "../../../importers/sources/llmperf.ts";
import { exportLlmperf } from "../../../testing/peer_exports/llmperf.ts";
import { endMs } from "../../../testing/peer_exports/_rows.ts";
import { exploreRows, neverSent } from "./_explore_rows.ts";

Deno.test("exportLlmperf() → readLlmperf() gives back each sent request's durations, outcome and tokens", async (t) => {
  const { requests, attempts } = await exploreRows();
  const run = readLlmperf([
    sourceText(
      "x_individual_responses.json",
      exportLlmperf([...requests, neverSent(requests[5]!, { outcome: "client_shed" })], { attempts }),
    ),
  ]);
  // The tool's order is completion order: ours sorted the same way (a stable sort, ties in row order).
  const ours = [...requests].sort((a, b) => endMs(a, attempts) - endMs(b, attempts));
  await t.step("527 of 528 rows: the never-sent row is dropped; 512 ok and 15 errors (HTTP 503)", () => {
    assert.equal(run.requests.length, 527);
    assert.equal(run.requests.filter((r) => r.outcome === "ok").length, 512);
    const errors = run.requests.filter((r) => r.outcome === "error");
    assert.equal(errors.length, 15);
    assert.ok(errors.every((r) => r.http_status === 503 && r.tool_status === "503 http_error: http_503"));
  });
  await t.step("row by row: TTFT and e2e (to 1e-9 ms), outcome and both token counts", () => {
    const close = (x: number | null, y: number, what: string) =>
      assert.ok(x !== null && Math.abs(x - y) < 1e-9, `${what}: ${x} ≠ ${y}`);
    ours.forEach((r, i) => {
      const s = run.requests[i]!;
      assert.equal(s.outcome, r.outcome === "ok" ? "ok" : "error");
      assert.equal(s.input_tokens, r.input_tokens);
      assert.equal(s.output_tokens, r.output_tokens);
      if (r.outcome === "ok") {
        close(s.ttft_ms, r.first_token_ms! - r.first_sent_ms!, `${r.request_id} ttft`);
        close(s.e2e_ms, r.completed_ms! - r.first_sent_ms!, `${r.request_id} e2e`);
      } else {
        // The tool never measures e2e on an exception (0, read as null); a first token, if one came, survives.
        assert.equal(s.e2e_ms, null);
        if (r.first_token_ms === null) assert.equal(s.ttft_ms, null);
        else close(s.ttft_ms, r.first_token_ms - r.first_sent_ms!, `${r.request_id} ttft`);
      }
    });
  });
});
