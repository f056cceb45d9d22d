/**
 * Issue 32's whole path on the simulator, as a user takes it: the design workload run with `--save-outputs`, its
 * open-ended answers judged by the simulator's judge (`deno task judge`), a 40-item stratified sample reviewed by two
 * raters through the offline page in headless Chromium (keyboard, export), `review import` with its disagreement record
 * and an adjudication, then `analyze` with the calibrated judge as the source of the open-ended classes. The figures
 * `analyze` prints are recomputed here from the quality table by plain loops (consensus, the judge's sensitivity and
 * specificity, Rogan–Gladen), an independent route to the same numbers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, launchChromium } from "../../examples/chat/cdp.ts";
import { findChromium } from "../../analysis/plots/chromium.ts";
import { runLoadTest } from "../../runner/run.ts";
import { loadSimProfile } from "../../schema/sim_profile.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { readQuality } from "../../schema/quality_file.ts";
import type { QualityRow } from "../../schema/quality.ts";
import { startSim } from "../../sim/mod.ts";
import { answerPasses } from "../../sim/answer_check.ts";
import { writeJson } from "../../testing/tiny_workload.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { runCli } from "../support/run_cli.ts";
import { clickOn, haveChromium, newDownload } from "../browser/_tools.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DESIGN_V1 = join(ROOT, "data/workloads/design-v1");
const JUDGE_CLI = join(ROOT, "runner/judge/cli.ts");
const REVIEW_CLI = join(ROOT, "analysis/cli/review.ts");
const ANALYZE_CLI = join(ROOT, "analysis/cli/analyze.ts");
const OPEN_ENDED = ["long_summary", "rag_answer"];
const js = (v: unknown) => JSON.stringify(v);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The scores a rater gives an answer they judge passing or failing, criterion by criterion, as keys to press. */
const KEYS: Record<string, { pass: string[]; fail: string[] }> = {
  "long-summary": { pass: ["1", "5", "4"], fail: ["0", "3", "4"] },
  "rag-answer": { pass: ["1", "1", "1"], fail: ["1", "0", "0"] },
};

/**
 * One rater's session: opens the packet from disk, chooses `rater`, scores every assigned item with the keyboard by
 * `verdictOf(item)`, exports, and returns the downloaded ratings file.
 */
async function rate(
  browser: Browser,
  packet: string,
  rater: string,
  downloads: string,
  items: readonly string[],
  verdictOf: (item: string) => { rubric: string; pass: boolean },
): Promise<string> {
  const page = await browser.newPage(pathToFileURL(packet).href);
  await page.evaluate(`document.getElementById("rater-select").value = ${js(rater)}`);
  await clickOn(page, "#start");
  for (let i = 0; i < items.length; i++) {
    const item = await page.evaluate<string>("window.reviewPacket.current()");
    assert.equal(item, items[i], `${rater}: the page shows the items in the key's order`);
    const v = verdictOf(item);
    for (const k of KEYS[v.rubric]![v.pass ? "pass" : "fail"]) await page.press(k);
    await pause(40);
    if (i < items.length - 1) await page.press("n");
  }
  const before = new Set([...Deno.readDirSync(downloads)].map((e) => e.name));
  await clickOn(page, "#export");
  const file = await newDownload(downloads, before);
  assert.deepEqual(browser.problems(), []);
  return file;
}

Deno.test({
  name: "the quality path: run, judge, a 40-item review by two raters in Chromium, import, analyze by calibrated judge",
  ignore: !haveChromium() && Deno.env.get("CI") !== "true",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "gp-quality-e2e-" });
    const loaded = await loadWorkload(DESIGN_V1);
    const judgeProfile = await loadSimProfile(join(ROOT, "data/sim/judge.json"));
    // Open-ended answers wrong often enough that both sides of the judge's calibration have items, and a judge good
    // enough (sensitivity and specificity 0.95: an expected kappa near 0.9) to clear the policy's minimum of 0.6 on 40
    // reviewed items; a stricter minimum is refused below.
    const profile = {
      ...judgeProfile,
      judge: { ...judgeProfile.judge!, sensitivity: 0.95, specificity: 0.95 },
      cold_start: { warmup_ms: 0, slowdown: 1 },
      behaviour: {
        ...judgeProfile.behaviour,
        classes: { long_summary: { accuracy: 0.6 }, rag_answer: { accuracy: 0.6 } },
      },
    };
    const sim = await startSim({ port: 0, profile, workload: loaded, seed: 11, quiet: true });
    try {
      const plan = writeJson(dir, "plan.json", {
        name: "quality-e2e",
        seed: 17,
        arrivals: { process: "constant", rate_rps: 12, duration_s: 10 },
      });
      const run = await runLoadTest({
        workload: DESIGN_V1,
        plan,
        target: sim.url,
        out: join(dir, "out"),
        formats: ["csv"],
        conditions: join(ROOT, "data/conditions/sim-demo.json"),
        progress: false,
        saveOutputs: true,
      });
      const runDir = run.dir;
      const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
      const outputs = new Map(
        (await Deno.readTextFile(join(runDir, "outputs.jsonl"))).trim().split("\n").map((l) => {
          const o = JSON.parse(l) as { request_id: string; text: string };
          return [o.request_id, o.text] as const;
        }),
      );
      const byId = new Map(requests.map((r) => [r.request_id, r]));
      /** The truth the simulator's judge and the raters go by: the case's own check on the answer. */
      const truth = (requestId: string) => {
        const c = loaded.byCaseId.get(byId.get(requestId)!.case_id)!;
        return answerPasses(c.quality_check, outputs.get(requestId)!) === true;
      };
      const eligible = requests.filter((r) =>
        OPEN_ENDED.includes(r.class) && r.outcome === "ok" && outputs.has(r.request_id)
      );

      await t.step("the run: the design workload, open-ended answers saved", () => {
        assert.ok(eligible.length >= 30, `${eligible.length} open-ended answers saved`);
        const wrong = eligible.filter((r) => !truth(r.request_id)).length;
        assert.ok(wrong >= 5 && wrong <= eligible.length - 5, `${wrong} of ${eligible.length} wrong`);
      });

      await t.step("judge: one verdict per saved open-ended answer, tokens recorded", async () => {
        const r = await runCli(JUDGE_CLI, [runDir, "--target", sim.url, "--model", "sim-judge", "--rate", "50/s"], [
          "--allow-all",
        ]);
        assert.equal(r.code, 0, r.stderr);
        const q = await readQuality(runDir, { runId: run.manifest.run_id, requestIds: new Set(byId.keys()) });
        const judged = q!.rows.filter((x) => x.source === "judge:sim-judge");
        assert.deepEqual(judged.map((x) => x.request_id).sort(), eligible.map((x) => x.request_id).sort());
        assert.ok(judged.every((x) => (x.input_tokens ?? 0) > 0 && (x.output_tokens ?? 0) > 0));
      });

      const packet = join(dir, "review", "packet.html");
      const keyFile = join(dir, "review", "packet.key.json");
      await t.step("review sample: 40 items, two raters, half of them rated by both", async () => {
        await Deno.mkdir(join(dir, "review"));
        const r = await runCli(REVIEW_CLI, [
          "sample",
          runDir,
          "--out",
          packet,
          "--total",
          "40",
          "--raters",
          "ana,bo",
          "--double-share",
          "0.5",
          "--seed",
          "3",
        ], ["--allow-all"]);
        assert.equal(r.code, 0, r.stderr);
      });
      const key = JSON.parse(await Deno.readTextFile(keyFile)) as {
        items: { item: string; request_id: string; rubric_id: string; raters: string[] }[];
        assignments: Record<string, string[]>;
      };
      const items = new Map(key.items.map((i) => [i.item, i]));
      // bo misreads every eighth answer he rates: on a double-rated item, a disagreement the record and the adjudication
      // must catch; on one he rates alone, an error of the consensus itself, which the judge's calibration absorbs.
      const boMisses = new Set(key.assignments.bo!.filter((_, i) => i % 8 === 2));
      const ratings: string[] = [];

      await t.step("two raters rate their items on the page in Chromium, with the keyboard, and export", async () => {
        assert.equal(key.items.length, 40);
        assert.equal(key.items.filter((i) => i.raters.length === 2).length, 20);
        const html = await Deno.readTextFile(packet);
        for (const i of key.items) assert.ok(!html.includes(i.request_id), `${i.request_id} leaks into the page`);
        const downloads = await Deno.makeTempDir({ prefix: "gp-quality-downloads-" });
        const browser = await launchChromium({ executable: findChromium()!, size: [1200, 900] });
        try {
          await browser.allowDownloads(downloads);
          for (const rater of ["ana", "bo"]) {
            ratings.push(
              await rate(browser, packet, rater, downloads, key.assignments[rater]!, (item) => {
                const it = items.get(item)!;
                const right = truth(it.request_id);
                return { rubric: it.rubric_id, pass: rater === "bo" && boMisses.has(item) ? !right : right };
              }),
            );
          }
        } finally {
          await browser.close();
        }
      });

      await t.step("review import: agreement, the disagreement record, then the adjudication settles it", async () => {
        const r = await runCli(REVIEW_CLI, ["import", keyFile, ...ratings, "--resamples", "200"], ["--allow-all"]);
        assert.equal(r.code, 0, r.stderr);
        const record = JSON.parse(await Deno.readTextFile(join(dir, "review", "packet.disagreements.json")));
        const doubled = new Set(key.items.filter((i) => i.raters.length === 2).map((i) => i.item));
        const expected = [...boMisses].filter((i) => doubled.has(i)).sort();
        const listed = (record.items as { item: string; differs_on: string[] }[])
          .filter((d) => d.differs_on.includes("pass")).map((d) => d.item).sort();
        assert.deepEqual(listed, expected, "every double-rated item bo misread, and only those, differ on pass");
        assert.ok(expected.length >= 1);
        const adjFile = join(dir, "review", "packet.adjudication.json");
        const adj = JSON.parse(await Deno.readTextFile(adjFile));
        for (const e of adj.entries) {
          const it = items.get(e.item)!;
          const keys = KEYS[it.rubric_id]![truth(it.request_id) ? "pass" : "fail"];
          e.adjudicator = "cy";
          e.note = "settled against the document";
          e.scores = Object.fromEntries(Object.keys(e.scores).map((c, i) => [c, Number(keys[i])]));
        }
        await Deno.writeTextFile(adjFile, JSON.stringify(adj, null, 2));
        const again = await runCli(REVIEW_CLI, [
          "import",
          keyFile,
          ...ratings,
          "--adjudication",
          adjFile,
          "--resamples",
          "200",
        ], ["--allow-all"]);
        assert.equal(again.code, 0, again.stderr);
        const q = await readQuality(runDir, { runId: run.manifest.run_id, requestIds: new Set(byId.keys()) });
        const adjudicated = q!.rows.filter((x) => x.source === "adjudicated:cy");
        assert.equal(adjudicated.length, adj.entries.length);
        for (const a of adjudicated) assert.equal(a.pass, truth(a.request_id));
      });

      await t.step("analyze by the calibrated judge: the figures equal a recomputation from the table", async () => {
        const slo = JSON.parse(await Deno.readTextFile(join(ROOT, "data/slo/design-v1.json")));
        for (const c of OPEN_ENDED) slo.classes[c] = { ...slo.classes[c], quality_source: "calibrated-judge" };
        const sloFile = writeJson(dir, "slo.json", slo);
        const r = await runCli(ANALYZE_CLI, [runDir, "--slo", sloFile, "--json"], ["--allow-all"]);
        assert.equal(r.code, 0, r.stderr);
        const q = await readQuality(runDir, { runId: run.manifest.run_id, requestIds: new Set(byId.keys()) });
        const out = JSON.parse(r.stdout) as { quality: { classes: ClassOut[] } };
        checkCalibrated(out.quality.classes, q!.rows, (id) => byId.get(id)!.class);
        // The other side of the policy's minimum: a judge whose kappa is below it is refused, naming class and judge.
        const kappa = out.quality.classes[0]!.calibration.kappa.value;
        slo.quality = { min_judge_kappa: Math.min(1, kappa + 0.01) };
        const strict = await runCli(ANALYZE_CLI, [runDir, "--slo", writeJson(dir, "strict.json", slo)], [
          "--allow-all",
        ]);
        assert.equal(strict.code, 2, strict.stderr);
        assert.match(strict.stderr, /quality source calibrated-judge refused: judge sim-judge's Cohen's kappa/);
      });
    } finally {
      await sim.stop();
    }
  },
});

/** What `analyze --json` says of one class under the calibrated judge (the fields checked here). */
interface ClassOut {
  class: string;
  source: string;
  population: number;
  accepted: number;
  accepted_low: number;
  accepted_high: number;
  calibration: {
    scope: "class" | "pooled";
    tp: number;
    fp: number;
    tn: number;
    fn: number;
    class_pass: number;
    class_fail: number;
    kappa: { value: number };
  };
  correction: { judged_n: number; judged_pass: number; corrected: number; low: number; high: number };
}

/**
 * Recomputes the calibrated-judge figures from the verdict rows by plain loops: each request's human consensus (the
 * adjudicated verdict, else the raters' common verdict), the judge's confusion matrix against it (the class's own when
 * it has 10 reviewed passes and 10 fails, else pooled), Rogan–Gladen's θ = (p + Sp − 1)/(Se + Sp − 1) and its
 * delta-method interval, and the accepted count θ × population.
 */
function checkCalibrated(classes: ClassOut[], rows: QualityRow[], classOf: (id: string) => string): void {
  const consensus = new Map<string, boolean>();
  const human = new Map<string, boolean[]>();
  for (const r of rows) {
    if (r.source.startsWith("human:")) human.set(r.request_id, [...(human.get(r.request_id) ?? []), r.pass]);
  }
  for (const [id, v] of human) if (v.every((x) => x === v[0])) consensus.set(id, v[0]!);
  for (const r of rows) if (r.source.startsWith("adjudicated:")) consensus.set(r.request_id, r.pass);
  const judge = new Map(rows.filter((r) => r.source === "judge:sim-judge").map((r) => [r.request_id, r.pass]));
  const matrix = (cls: string | null) => {
    const m = { tp: 0, fp: 0, tn: 0, fn: 0 };
    for (const [id, truth] of consensus) {
      const j = judge.get(id);
      if (j === undefined || (cls !== null && classOf(id) !== cls)) continue;
      m[truth ? (j ? "tp" : "fn") : (j ? "fp" : "tn")]++;
    }
    return m;
  };
  assert.equal(classes.length, 2);
  for (const c of classes) {
    assert.equal(c.source, "calibrated-judge");
    const own = matrix(c.class);
    const [pass, fail] = [own.tp + own.fn, own.tn + own.fp];
    assert.deepEqual([c.calibration.class_pass, c.calibration.class_fail], [pass, fail], c.class);
    const scope = pass >= 10 && fail >= 10 ? "class" : "pooled";
    assert.equal(c.calibration.scope, scope, c.class);
    const m = scope === "class" ? own : matrix(null);
    assert.deepEqual(
      [c.calibration.tp, c.calibration.fp, c.calibration.tn, c.calibration.fn],
      [m.tp, m.fp, m.tn, m.fn],
      c.class,
    );
    // The judged population: every request of it has the judge's verdict, and no more requests than the class has.
    const judgedInClass = [...judge].filter(([id]) => classOf(id) === c.class);
    assert.equal(c.correction.judged_n, c.population);
    assert.ok(c.population <= judgedInClass.length);
    assert.ok(c.correction.judged_pass <= judgedInClass.filter(([, p]) => p).length);
    const se = m.tp / (m.tp + m.fn), sp = m.tn / (m.tn + m.fp);
    const p = c.correction.judged_pass / c.correction.judged_n;
    const theta = Math.min(1, Math.max(0, (p + sp - 1) / (se + sp - 1)));
    assert.ok(Math.abs(c.correction.corrected - theta) < 1e-12, `${c.class}: θ ${c.correction.corrected} vs ${theta}`);
    assert.ok(Math.abs(c.accepted - theta * c.population) < 1e-9, c.class);
    const variance = (p * (1 - p) / c.correction.judged_n + theta ** 2 * se * (1 - se) / (m.tp + m.fn) +
      (1 - theta) ** 2 * sp * (1 - sp) / (m.tn + m.fp)) / (se + sp - 1) ** 2;
    const z = 1.959963984540054;
    const low = Math.max(0, theta - z * Math.sqrt(variance)), high = Math.min(1, theta + z * Math.sqrt(variance));
    assert.ok(Math.abs(c.correction.low - low) < 1e-6, `${c.class}: low ${c.correction.low} vs ${low}`);
    assert.ok(Math.abs(c.correction.high - high) < 1e-6, `${c.class}: high ${c.correction.high} vs ${high}`);
    assert.ok(Math.abs(c.accepted_low - low * c.population) < 1e-5 * c.population, c.class);
    assert.ok(Math.abs(c.accepted_high - high * c.population) < 1e-5 * c.population, c.class);
  }
}
