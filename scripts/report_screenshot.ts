/**
 * Regenerates the report screenshots in docs/ (shown in docs/plots.md): the HTML report of a run (the page
 * `npx deno task report RUN` writes, built by the same calls) rendered by headless Chromium 1280 px wide.
 *
 * - `report_first_screen.png`: the first screen, 1280 × 800, as a reader opening the file sees it: the verdict
 *   (headline, rules, caveats) and the top of the first figure.
 * - `report.png`: the page from its first figure down, 1280 × 1400: goodput vs offered load and the run timeline,
 *   through an iframe of the unchanged report page.
 *
 * `npx deno run -A scripts/report_screenshot.ts [RUN] [OUT_DIR]` (defaults: data/runs/explore, docs/).
 */
import { join } from "node:path";
import { buildReport, loadRun, loadSloPolicy, runReportExtras } from "../mod.ts";
import { policySourceLabel } from "../analysis/report/policy_source.ts";
import { CHROMIUM_FLAGS, findChromium, screenshot } from "../analysis/plots/chromium.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** `report_screenshot`: its arguments and help (lib/command.ts). */
export const REPORT_SCREENSHOT_COMMAND = {
  name: "report_screenshot",
  invocation: "npx deno run -A scripts/report_screenshot.ts",
  summary: "regenerates the report screenshots of docs/plots.md (first screen and figures) with headless Chromium",
  positionals: [
    { name: "RUN", noun: "argument", description: "the run folder (default: `data/runs/explore`)", min: 0, max: 1 },
    { name: "OUT_DIR", noun: "argument", description: "where the two PNGs go (default: `docs/`)", min: 0, max: 1 },
  ],
  flags: {},
  examples: ["npx deno run -A scripts/report_screenshot.ts data/runs/explore /tmp"],
} as const satisfies CommandSpec;
/** The first screen, CSS px: the window the report's browser test checks the verdict against. */
const FIRST_SCREEN: [number, number] = [1400, 900];
/** Height of the figures view, px: the first figure and the timeline. */
const FIGURES = 1400;

async function main({ positionals, check }: ParsedCommand<typeof REPORT_SCREENSHOT_COMMAND>): Promise<void> {
  check.throwIfAny();
  const [dir = join(ROOT, "data/runs/explore"), outDir = join(ROOT, "docs")] = positionals;
  const sloFile = join(ROOT, "data/slo/design-v1.json");
  const policy = await loadSloPolicy(sloFile);
  const run = await loadRun(dir);
  // As `npx deno task report RUN` does: the knee (every headroom choice marked, none applied), the detected outages, the
  // SLO file by name and hash.
  const { extras } = runReportExtras(run, policy);
  const report = buildReport(run, policy, { policy_source: await policySourceLabel(sloFile), extras });
  const exe = findChromium();
  if (!exe) throw new Error("Chromium not found: apt-get install chromium, or set CHROMIUM");
  const tmp = await Deno.makeTempDir({ prefix: "gp-shot-" });
  const abs = (f: string) => (f.startsWith("/") ? f : join(Deno.cwd(), f));
  try {
    const page = join(tmp, "report.html");
    await Deno.writeTextFile(page, report.html);
    const first = abs(join(outDir, "report_first_screen.png"));
    await screenshot(page, first, { size: FIRST_SCREEN, budgetMs: 30_000, chromium: exe });
    console.log(`${first}: ${FIRST_SCREEN.join(" × ")} px`);

    const [w] = FIRST_SCREEN;
    await Deno.writeTextFile(
      join(tmp, "view.html"),
      `<!DOCTYPE html><html><body style="margin:0"><iframe src="report.html#figure-goodput-vs-load" ` +
        `scrolling="no" style="display:block;width:${w}px;height:${FIGURES}px;border:0"></iframe></body></html>`,
    );
    const figures = abs(join(outDir, "report.png"));
    const res = await new Deno.Command(exe, {
      args: [
        ...CHROMIUM_FLAGS,
        "--allow-file-access-from-files",
        `--user-data-dir=${join(tmp, "profile")}`,
        `--window-size=${w},${FIGURES}`,
        "--virtual-time-budget=30000",
        `--screenshot=${figures}`,
        `file://${join(tmp, "view.html")}`,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!res.success) throw new Error(`${exe} exited with ${res.code}: ${new TextDecoder().decode(res.stderr)}`);
    console.log(`${figures}: ${w} × ${FIGURES} px`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) await runCommand(REPORT_SCREENSHOT_COMMAND, main);
