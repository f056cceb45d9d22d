/**
 * Regenerates the screenshot `docs/report.png` (shown in docs/plots.md): the HTML report of
 * a run (the page `deno task report RUN` writes, built by the same
 * `buildReport`) rendered by headless Chromium — its top (headline and
 * goodput tables) above its first figures (goodput vs offered load, the run
 * timeline), each shown through an iframe of the unchanged report page.
 *
 * `npx deno run -A scripts/report_screenshot.ts [RUN] [OUT.png]`
 * (defaults: data/runs/explore, docs/report.png).
 */
import { join } from "node:path";
import { buildReport, loadRun, loadSloPolicy, runReportExtras } from "../mod.ts";
import { CHROMIUM_FLAGS, findChromium } from "../analysis/plots/chromium.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** `report_screenshot`: its arguments and help (lib/command.ts). */
export const REPORT_SCREENSHOT_COMMAND = {
  name: "report_screenshot",
  invocation: "npx deno run -A scripts/report_screenshot.ts",
  summary: "regenerates the report screenshot of docs/plots.md with headless Chromium",
  positionals: [
    { name: "RUN", noun: "argument", description: "the run folder (default: `data/runs/explore`)", min: 0, max: 1 },
    { name: "OUT.png", noun: "argument", description: "the PNG written (default: `docs/report.png`)", min: 0, max: 1 },
  ],
  flags: {},
  examples: ["npx deno run -A scripts/report_screenshot.ts data/runs/explore /tmp/report.png"],
} as const satisfies CommandSpec;
const WIDTH = 1280;
/** Heights of the two views, px: the top of the page, then the page scrolled to its first figure. */
const TOP = 660, FIGURES = 1210;

async function main({ positionals, check }: ParsedCommand<typeof REPORT_SCREENSHOT_COMMAND>): Promise<void> {
  check.throwIfAny();
  const [dir = join(ROOT, "data/runs/explore"), out = join(ROOT, "docs/report.png")] = positionals;
  const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
  const run = await loadRun(dir);
  // As `deno task report RUN` does: the knee (every headroom choice marked, none applied) and the detected outages.
  const { extras } = runReportExtras(run, policy);
  const report = buildReport(run, policy, { policy_source: "data/slo/design-v1.json", extras });
  const exe = findChromium();
  if (!exe) throw new Error("Chromium not found: apt-get install chromium, or set CHROMIUM");
  const tmp = await Deno.makeTempDir({ prefix: "gp-shot-" });
  try {
    await Deno.writeTextFile(join(tmp, "report.html"), report.html);
    const frame = (src: string, h: number) =>
      `<iframe src="${src}" scrolling="no" style="display:block;width:${WIDTH}px;height:${h}px;border:0"></iframe>`;
    await Deno.writeTextFile(
      join(tmp, "view.html"),
      `<!DOCTYPE html><html><body style="margin:0">${frame("report.html", TOP)}` +
        `<div style="height:6px;background:#999"></div>${
          frame("report.html#figure-goodput-vs-load", FIGURES)
        }</body></html>`,
    );
    const target = out.startsWith("/") ? out : join(Deno.cwd(), out);
    const res = await new Deno.Command(exe, {
      args: [
        ...CHROMIUM_FLAGS,
        "--allow-file-access-from-files",
        `--user-data-dir=${join(tmp, "profile")}`,
        `--window-size=${WIDTH},${TOP + 6 + FIGURES}`,
        "--virtual-time-budget=30000",
        `--screenshot=${target}`,
        `file://${join(tmp, "view.html")}`,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!res.success) throw new Error(`${exe} exited with ${res.code}: ${new TextDecoder().decode(res.stderr)}`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  const size = (await Deno.stat(out)).size;
  console.log(`${out}: ${WIDTH} × ${TOP + 6 + FIGURES} px, ${(size / 1024).toFixed(0)} KB`);
}

if (import.meta.main) await runCommand(REPORT_SCREENSHOT_COMMAND, main);
