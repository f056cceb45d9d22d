/**
 * Tools the browser and notebook tests need from the machine. In CI
 * (CI=true) a missing tool fails the test; locally the test is skipped with
 * a loud message.
 */
import { findChromium } from "../../analysis/plots/chromium.ts";

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

/** Whether `jupyter nbconvert` and a registered Deno kernel are available. */
export function haveJupyterDeno(): boolean {
  let ok = false;
  try {
    const out = new Deno.Command("jupyter", { args: ["kernelspec", "list", "--json"], stdout: "piped", stderr: "null" })
      .outputSync();
    ok = out.success && "deno" in (JSON.parse(new TextDecoder().decode(out.stdout)).kernelspecs ?? {});
  } catch {
    ok = false; // no jupyter on PATH
  }
  return present("Jupyter with the Deno kernel", ok, "pip install nbconvert; deno jupyter --install");
}

/** A folder for test artefacts (screenshots, executed notebooks), kept after the test for a look. */
export function artefactDir(name: string): string {
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/goodput-test-artefacts/${name}`;
  Deno.mkdirSync(dir, { recursive: true });
  return dir;
}
