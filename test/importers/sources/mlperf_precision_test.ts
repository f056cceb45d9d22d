/**
 * The MLPerf LoadGen reader compares its summary with its detail log at the coarser of the two printed precisions
 * (issue 28 §2): the summary prints fixed 2 decimals, the detail log 6 significant digits, so a token rate above 10,000
 * is 22020.92 in one and 22020.9 in the other — one number.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadSourceTexts, sourceText } from "../../../importers/sources/_source_text.ts";
import { readMlperfLoadgen } from "../../../importers/sources/mlperf_loadgen.ts";

/** The real logs (mlcommons/inference submission sample, ../shared/data/peers/README.md), read in place. */
const DIR = fileURLToPath(
  new URL(
    "../../../../shared/data/peers/mlperf-inference/AMD_8xMI300X_llama2-70b-99.9_Interactive_run_1/",
    import.meta.url,
  ),
);

/** The real summary and detail log with the token rate as LoadGen prints 22020.92 tokens/s in each. */
async function withTokenRate(summaryText: string, detailText: string) {
  const [summary, detail] = await loadSourceTexts([`${DIR}mlperf_log_summary.txt`, `${DIR}mlperf_log_detail.txt`]);
  // The real files hold 8840.42 in both (summary lines 8 and 33; detail "result_completed_tokens_per_second").
  const s = summary!.text.replaceAll(/(Completed tokens per second\s*:) 8840\.42/g, `$1 ${summaryText}`);
  const d = detail!.text.replace(
    '"result_completed_tokens_per_second", "value": 8840.42',
    `"result_completed_tokens_per_second", "value": ${detailText}`,
  );
  assert.notEqual(s, summary!.text);
  assert.notEqual(d, detail!.text);
  return readMlperfLoadgen([sourceText("mlperf_log_summary.txt", s), sourceText("mlperf_log_detail.txt", d)]);
}

const disagreements = (run: ReturnType<typeof readMlperfLoadgen>) => run.notes.filter((n) => /disagrees/.test(n));

Deno.test("readMlperfLoadgen(): the summary and the detail log agree at the coarser of their precisions", async (t) => {
  await t.step("22020.92 (summary, 2 decimals) and 22020.9 (detail, 6 significant digits) are one number", async () => {
    // At the detail's one decimal, 22020.92 is 22020.9: |22020.92 − 22020.9| = 0.02 ≤ 0.05 (half of 0.1).
    // Before: compared at the summary's 2 decimals (0.02 > 0.005), a "disagreement".
    assert.deepEqual(disagreements(await withTokenRate("22020.92", "22020.9")), []);
  });
  await t.step(
    "the real logs as LoadGen wrote them agree (8840.42 in both; 29.41 vs 29.4065 at 2 decimals)",
    async () => {
      const real = await loadSourceTexts([`${DIR}mlperf_log_summary.txt`, `${DIR}mlperf_log_detail.txt`]);
      assert.deepEqual(disagreements(readMlperfLoadgen(real)), []);
    },
  );
  await t.step("a real difference is still noted: 22020.92 vs 22020.7 (0.22 > 0.05)", async () => {
    const notes = disagreements(await withTokenRate("22020.92", "22020.7"));
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /"Completed tokens per second" \(22020\.92\) disagrees .* \(22020\.7\)/);
  });
});
