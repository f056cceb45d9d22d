/**
 * The report of a committed sample run, as `deno task report RUN` writes it, rendered by headless Chromium at
 * 1400 × 900: the verdict line and the headline cards on the first screen, nothing above the cards and no caveat line
 * longer than one line, the first figure starting on it, and in every figure no SVG text clipped by the figure's edge
 * and no two texts on each other.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { screenshot } from "../../analysis/plots/chromium.ts";
import { figureHtml } from "../../analysis/plots/html.ts";
import type { Figure } from "../../analysis/plots/figure.ts";
import { runCli } from "../support/run_cli.ts";
import { artefactDir, haveChromium } from "./_tools.ts";
import { clippedTexts, describe, isOneLine, type Layout, overlappingTexts, probeLayout } from "./_layout.ts";
import { RANDOM_POLICY, randomRecording } from "../analysis/latency/_wait_fixture.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** The first screen: a 1400 × 900 window, CSS px (issue 28: a laptop's browser window). */
const FIRST_SCREEN: [number, number] = [1400, 900];
/** The first figure starts at most this far down: at least its top 100 px are on the first screen. */
const FIRST_FIGURE_MAX_TOP = 800;

/**
 * A figure made wrong on purpose, drawn in the same page: a subtitle of one 300-character line (the figures cut
 * theirs into lines) and two labels at one spot. The checks must find both, or they would pass anything.
 */
const BROKEN: Figure = {
  id: "control-broken",
  title: "control",
  disclosure: "",
  notes: [],
  data: [{ type: "scatter", x: [0, 1], y: [0, 1] }],
  layout: {
    title: { text: "A control figure", subtitle: { text: "a very long subtitle ".repeat(15) } },
    annotations: [
      { x: 0.5, y: 0.5, xref: "paper", yref: "paper", text: "label one", showarrow: false },
      { x: 0.5, y: 0.5, xref: "paper", yref: "paper", text: "label two", showarrow: false },
    ],
  },
};

async function reportOf(run: string, dir: string): Promise<string> {
  if (run === RECORDING) return recordingReport(dir);
  const out = join(dir, `${run}.html`);
  const r = await runCli(join(ROOT, "analysis/cli/report.ts"), [join(ROOT, "data/runs", run), "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  return Deno.readTextFileSync(out);
}

/**
 * A production recording (the wait breakdown's random fixture: 80 tasks, page-joined and not, tool and retrieval
 * steps, failed model calls), reported.
 */
const RECORDING = "recording";

async function recordingReport(dir: string): Promise<string> {
  const slo = join(dir, "recording-slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(RANDOM_POLICY));
  const out = join(dir, `${RECORDING}.html`);
  const r = await runCli(join(ROOT, "analysis/cli/report.ts"), [randomRecording(), "--slo", slo, "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  return Deno.readTextFileSync(out);
}

Deno.test({
  name: "the report leads with one verdict line and the headline cards on the first screen at 1400 × 900, one line " +
    "per caveat, and no figure text is clipped or overlaps",
  ignore: !haveChromium(),
  fn: async (t) => {
    const artefacts = artefactDir("report-layout");
    // explore: a 1.0 log with unsupported percentiles; route-hosted: a client-limited run (an alert among the caveats);
    // a production recording: its meaning in the banner, where the wait went with every segment measured; quality: a
    // run with a quality table (the section "Quality by rubric" and its two figures).
    for (const run of ["explore", "route-hosted", RECORDING, "quality"]) {
      await t.step(run, async () => {
        const html = await reportOf(run, artefacts);
        const withControl = html.replace('<pre id="gp-render-summary">', `${figureHtml(BROKEN)}\n$&`);
        const layout: Layout = await probeLayout(withControl, artefacts, FIRST_SCREEN);
        assert.equal(layout.viewport[0], FIRST_SCREEN[0], "the page is laid out 1400 px wide");

        const v = layout.verdict;
        assert.ok(v, "the page has a verdict block");
        assert.ok(
          v.y + v.h <= FIRST_SCREEN[1],
          `the verdict ends at ${Math.round(v.y + v.h)} px, below the first screen`,
        );
        const figures = layout.figures.filter((f) => f.id !== BROKEN.id);
        assert.ok(figures.length >= 9, `${figures.length} figures`);
        // Where the wait went: its figure among the others (laid out like them, below) and its section of the tables.
        assert.ok(figures.some((f) => f.id === "wait-breakdown"), "the wait breakdown figure");
        assert.ok(html.includes('<details id="wait-breakdown-table" open>'), "the wait breakdown section");
        if (run === RECORDING) {
          assert.ok(html.includes("NOTE</span> PRODUCTION RECORDING of chat-app 1.4.2"), "its note");
        }
        if (run === "quality") {
          for (const id of ["judge-confusion-sim-judge", "acceptance-by-quality-source"]) {
            assert.ok(figures.some((f) => f.id === id), id);
          }
        }

        // The first screen, from the page: the verdict line first, then the cards, both inside the first 900 px;
        // nothing above the cards and no caveat line is longer than one line.
        const f = layout.first;
        assert.ok(f.headline, "the headline cards");
        assert.ok(
          f.headline.y + f.headline.h <= FIRST_SCREEN[1],
          `the cards end at ${Math.round(f.headline.y + f.headline.h)} px`,
        );
        assert.match(f.above[0]?.text ?? "", /^(VALID|INCOMPLETE RUN|NO CAPACITY|CLIENT-LIMITED)[ +A-Z-]*: /);
        assert.ok(f.above[0]!.box.y + f.above[0]!.box.h <= FIRST_SCREEN[1]);
        const tall = [...f.above, ...f.caveats].filter((l) => !isOneLine(l));
        assert.deepEqual(
          tall.map((l) => `${l.tag} ${Math.round(l.box.h)} px (line ${l.lineHeight} px): ${l.text}`),
          [],
          "longer than one line",
        );
        assert.ok(f.caveats.length >= 1, "the sample runs have caveats, each one line");
        assert.ok(figures[0]!.box.y > v.y + v.h, "the verdict comes first");
        assert.ok(
          figures[0]!.box.y <= FIRST_FIGURE_MAX_TOP,
          `the first figure (${figures[0]!.id}) starts at ${Math.round(figures[0]!.box.y)} px`,
        );

        const problems = figures.map((f) => describe(f.id, clippedTexts(f), overlappingTexts(f))).filter(Boolean);
        assert.deepEqual(problems, [], problems.join("\n"));
        // Texts were found at all: each figure has its title, ticks and legend.
        for (const f of figures) assert.ok(f.texts.length >= 10, `${f.id}: ${f.texts.length} texts`);

        const control = layout.figures.find((f) => f.id === BROKEN.id)!;
        assert.ok(clippedTexts(control).some((x) => x.cls === "gtitle-subtitle"), "the control's long subtitle");
        assert.deepEqual(
          overlappingTexts(control).map(([a, b]) => [a.text, b.text]),
          [["label one", "label two"]],
        );

        const shot = join(artefacts, `${run}-first-screen.png`);
        await screenshot(join(artefacts, `${run}.html`), shot, { size: FIRST_SCREEN });
        assert.ok(Deno.statSync(shot).size > 30_000, "a first-screen screenshot of some substance");
      });
    }
    await t.step("control: a caveat of several lines is found, so the one-line check can fail", async () => {
      // The explore page with its first caveat line made ten times as long: at 1400 px it wraps.
      const html = (await reportOf("explore", artefacts)).replace(
        '<ul class="gp-caveat-lines"><li class="gp-sev-NOTE"><span class="gp-sev">NOTE</span> ',
        `$&${"a caveat written as a paragraph, as they were before ".repeat(10)}`,
      );
      assert.ok(html.includes("as they were before a caveat"), "the control's long caveat is in the page");
      const layout = await probeLayout(html, artefacts, FIRST_SCREEN);
      const tall = layout.first.caveats.filter((l) => !isOneLine(l));
      assert.equal(tall.length, 1, "exactly the lengthened caveat is longer than one line");
      assert.match(tall[0]!.text, /^NOTE a caveat written as a paragraph/);
    });
    console.log(`pages and first-screen screenshots in ${artefacts}`);
  },
});
