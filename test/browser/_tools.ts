/**
 * Tools the browser and notebook tests need from the machine. In CI
 * (CI=true) a missing tool fails the test; locally the test is skipped with
 * a loud message.
 */
import { join } from "node:path";
import { findChromium } from "../../analysis/plots/chromium.ts";
import type { Page } from "../../examples/chat/cdp.ts";
import { KERNEL_NAME, kernelspecDir } from "../../scripts/kernel.ts";

const inCi = Deno.env.get("CI") === "true";

/** True when the tool is there; false (after a loud warning) when it is missing outside CI; throws in CI. */
function present(name: string, found: boolean, install: string): boolean {
  if (found) return true;
  const msg = `${name} is missing (${install})`;
  if (inCi) throw new Error(`CI: ${msg}; .ci/run installs it`);
  console.warn(`\n!!! SKIPPED: ${msg}; in CI this is a failure !!!\n`);
  return false;
}

/** Whether Debian's chromium (or $CHROMIUM) is available. */
export function haveChromium(): boolean {
  return present("Chromium", findChromium() !== null, "apt-get install chromium");
}

/**
 * The environment under which Jupyter finds this clone's Deno as the kernel the notebooks name (goodput-deno): its
 * kernelspec written into a temporary folder on JUPYTER_PATH, so the tests never register a kernel for the user.
 */
export const jupyterEnv: Record<string, string> = (() => {
  const root = kernelspecDir(Deno.makeTempDirSync({ prefix: "goodput-jupyter-" }), Deno.execPath());
  return { JUPYTER_PATH: [root, Deno.env.get("JUPYTER_PATH")].filter(Boolean).join(":") };
})();

/** Whether `jupyter nbconvert` is available and finds the goodput-deno kernel (under {@linkcode jupyterEnv}). */
export function haveJupyterDeno(): boolean {
  let ok = false;
  try {
    const out = new Deno.Command("jupyter", {
      args: ["kernelspec", "list", "--json"],
      env: jupyterEnv,
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    const found = out.success && KERNEL_NAME in (JSON.parse(new TextDecoder().decode(out.stdout)).kernelspecs ?? {});
    ok = found && new Deno.Command("jupyter", { args: ["nbconvert", "--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    ok = false; // no jupyter on PATH
  }
  return present("Jupyter (nbconvert)", ok, "pip install nbconvert");
}

/** A folder for test artefacts (screenshots, executed notebooks), kept after the test for a look. */
export function artefactDir(name: string): string {
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/goodput-test-artefacts/${name}`;
  Deno.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A real click in the middle of the element `selector` names (scrolled into view first). */
export async function clickOn(page: Page, selector: string): Promise<void> {
  const [x, y] = await page.evaluate<[number, number]>(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    el.scrollIntoView({ block: "center" });
    const r = el.getBoundingClientRect();
    return [r.x + r.width / 2, r.y + r.height / 2];
  })()`);
  await page.click(x, y);
}

/** Waits (up to 10 s) for a new .json file in `dir`, a finished download, and returns its path. */
export async function newDownload(dir: string, before: ReadonlySet<string>): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".json") && !before.has(n));
    if (names.length) return join(dir, names[0]!);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no download in ${dir}`);
}
