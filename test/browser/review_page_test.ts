/**
 * The review page driven in headless Chromium as a rater uses it: opened from file:// with no server, a rater chosen,
 * items scored with the keyboard (digits, Tab, arrows, n, Enter) and the buttons, notes typed, the help opened and
 * closed, the page reloaded (the work resumes from localStorage), the ratings exported (the download captured) and
 * then imported with `review import` into the runs' quality tables.
 */
import assert from "node:assert/strict";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, launchChromium, type Page } from "../../examples/chat/cdp.ts";
import { findChromium } from "../../analysis/plots/chromium.ts";
import { readQuality } from "../../schema/quality_file.ts";
import { rubricVerdict } from "../../schema/rubric.ts";
import { runCli } from "../support/run_cli.ts";
import { type Packet, smallPacket } from "../analysis/quality/review/_packet.ts";
import { clickOn, haveChromium, newDownload } from "./_tools.ts";

const CLI = fileURLToPath(new URL("../../analysis/cli/review.ts", import.meta.url));

const js = (v: unknown) => JSON.stringify(v);

/** The focused element: its id, or its tag. */
const focused = (page: Page) =>
  page.evaluate<string>(`(() => { const a = document.activeElement; return a ? (a.id || a.tagName) : ""; })()`);

const current = (page: Page) => page.evaluate<string>("window.reviewPacket.current()");
const text = (page: Page, id: string) => page.evaluate<string>(`document.getElementById(${js(id)}).textContent`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens the packet, chooses `rater` (the select, then a real click on Start). */
async function open(browser: Browser, p: Packet, rater: string): Promise<{ page: Page; chosen: string }> {
  const page = await browser.newPage(pathToFileURL(p.packetFile).href);
  const chosen = await page.evaluate<string>(`document.getElementById("rater-select").value`);
  await page.evaluate(`document.getElementById("rater-select").value = ${js(rater)}`);
  await clickOn(page, "#start");
  return { page, chosen };
}

Deno.test({
  name: "the review page: rate with keys and buttons, reload and resume, export, and the import lands the verdicts",
  ignore: !haveChromium(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const p = await smallPacket();
    const downloads = await Deno.makeTempDir({ prefix: "gp-review-downloads-" });
    const browser = await launchChromium({ executable: findChromium()!, size: [1200, 900] });
    try {
      await browser.allowDownloads(downloads);
      const list = p.key.assignments.ana!;
      const want: Record<string, Record<string, number>> = {};
      let { page } = await open(browser, p, "ana");

      await t.step("the first item: scored with digits, the focus moving on by itself", async () => {
        assert.equal(await text(page, "position"), `Item 1 of ${list.length}`);
        assert.equal(await current(page), list[0]);
        assert.equal(await focused(page), "criterion-0");
        for (const k of ["1", "5", "4"]) await page.press(k);
        want[list[0]!] = { faithful: 1, coverage: 5, concise: 4 };
        assert.match(await text(page, "verdict"), /Rubric verdict: pass/);
        assert.equal(await text(page, "progress-text"), `1 of ${list.length} rated`);
        await pause(300);
        await page.press("n");
        assert.equal(await current(page), list[1]);
      });

      await t.step("the second item: scored with the buttons; ? opens the help and Esc closes it", async () => {
        await clickOn(page, '#criterion-0 button[data-score="0"]');
        await clickOn(page, '#criterion-1 button[data-score="3"]');
        await clickOn(page, '#criterion-2 button[data-score="2"]');
        want[list[1]!] = { faithful: 0, coverage: 3, concise: 2 };
        assert.equal(
          await page.evaluate<string>(
            `document.querySelector('#criterion-1 button[data-score="3"]').getAttribute("aria-checked")`,
          ),
          "true",
        );
        assert.match(await text(page, "verdict"), /Rubric verdict: fail \(faithful, coverage, concise\)/);
        await page.press("?");
        assert.equal(await page.evaluate<boolean>(`document.getElementById("help").hidden`), false);
        assert.equal(await focused(page), "help-close");
        await page.press("Escape");
        assert.equal(await page.evaluate<boolean>(`document.getElementById("help").hidden`), true);
        await pause(300);
        await page.press("Enter");
        assert.equal(await current(page), list[2]);
      });

      await t.step("reloaded, the page resumes: the rater remembered, the ratings and the place kept", async () => {
        await page.evaluate(`location.href = "about:blank"`);
        const again = await open(browser, p, "ana");
        page = again.page;
        assert.equal(again.chosen, "ana", "the last rater is chosen");
        assert.equal(await current(page), list[2]);
        const exported = JSON.parse(await page.evaluate<string>("window.reviewPacket.exportText()"));
        assert.deepEqual(exported.ratings.map((r: { item: string; scores: object }) => [r.item, r.scores]), [
          [list[0], want[list[0]!]],
          [list[1], want[list[1]!]],
        ]);
      });

      await t.step("the third item: Tab and arrows between criteria, → raises a score, notes typed", async () => {
        assert.equal(await focused(page), "criterion-0");
        await page.press("Tab");
        assert.equal(await focused(page), "criterion-1");
        await page.press("4");
        assert.equal(await focused(page), "criterion-2");
        await page.press("3");
        await page.press("ArrowUp");
        await page.press("ArrowUp");
        assert.equal(await focused(page), "criterion-0");
        await page.press("1");
        assert.equal(await focused(page), "criterion-1");
        await page.press("ArrowRight");
        want[list[2]!] = { faithful: 1, coverage: 5, concise: 3 };
        await clickOn(page, "#notes");
        await page.type("checked the totals");
        assert.equal(await current(page), list[2]);
        await page.press("Escape");
        assert.equal(await focused(page), "criterion-0");
        await pause(300);
        await page.press("Enter");
        assert.equal(await current(page), list[3]);
      });

      let first = "";
      await t.step("an export with an item half scored: the import refuses it, naming the item", async () => {
        await page.press("0");
        await clickOn(page, "#export");
        first = await newDownload(downloads, new Set());
        assert.match(await text(page, "status"), /Exported 4 rated items .*1 of them not fully scored/);
        const r = await runCli(CLI, ["import", p.keyFile, first], ["--allow-all"]);
        assert.equal(r.code, 2, r.stderr);
        assert.ok(r.stderr.includes(`(item ${list[3]}): no score for criterion "coverage"`), r.stderr);
        await Deno.remove(first);
      });

      let exported = "";
      await t.step("finished and exported again: the download is the page's export", async () => {
        await page.press("2");
        await page.press("2");
        want[list[3]!] = { faithful: 0, coverage: 2, concise: 2 };
        assert.equal(await text(page, "progress-text"), `4 of ${list.length} rated`);
        await clickOn(page, "#export");
        exported = await newDownload(downloads, new Set());
        const file = JSON.parse(await Deno.readTextFile(exported));
        const fromPage = JSON.parse(await page.evaluate<string>("window.reviewPacket.exportText()"));
        assert.deepEqual(
          file.ratings.map((r: { item: string }) => r.item),
          fromPage.ratings.map((r: { item: string }) => r.item),
        );
        assert.deepEqual([file.packet_id, file.packet_sha256, file.rater], [
          p.key.packet_id,
          p.key.packet_sha256,
          "ana",
        ]);
        for (const r of file.ratings) {
          assert.deepEqual(r.scores, want[r.item], r.item);
          assert.ok(r.time_spent_ms > 0, `${r.item}: active time ${r.time_spent_ms} ms`);
          assert.ok(r.time_spent_ms < 120_000);
        }
        assert.equal(file.ratings.find((r: { item: string }) => r.item === list[2]).notes, "checked the totals");
        assert.deepEqual(browser.problems(), []);
      });

      await t.step("review import lands the verdicts in the runs' quality tables", async () => {
        const r = await runCli(CLI, ["import", p.keyFile, exported, "--resamples", "0"], ["--allow-all"]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /4 ratings: ana 4/);
        const file = JSON.parse(await Deno.readTextFile(exported));
        let found = 0;
        for (const run of p.runs) {
          const t = await readQuality(run.dir, {
            runId: run.runId,
            requestIds: new Set(run.requests.map((q) => q.request_id)),
          });
          for (const row of t?.rows ?? []) {
            const it = p.key.items.find((x) => x.request_id === row.request_id && p.runs[x.run] === run)!;
            assert.equal(row.source, "human:ana");
            assert.deepEqual(JSON.parse(row.scores), want[it.item]);
            assert.equal(row.pass, rubricVerdict(p.key.rubrics[0]!, want[it.item]!).pass);
            const rated = file.ratings.find((x: { item: string }) => x.item === it.item);
            assert.equal(row.time_spent_ms, rated.time_spent_ms);
            found++;
          }
        }
        assert.equal(found, 4);
      });
    } finally {
      await browser.close();
    }
  },
});
