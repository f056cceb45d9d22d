/**
 * Headless Chromium (Debian's `chromium`) for rendering pages offline:
 * dump the DOM after the page's scripts ran, or take a screenshot.
 *
 * @module
 */

/** The flags every call uses: headless, no sandbox (root in CI), no GPU, no background network. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--hide-scrollbars",
  "--no-first-run",
  "--disable-dev-shm-usage",
] as const;

const CANDIDATES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/**
 * The Chromium executable: `$CHROMIUM` when set, else the first of
 * chromium, chromium-browser, google-chrome(-stable) on `PATH`; null when
 * none is found.
 */
export function findChromium(): string | null {
  const env = Deno.env.get("CHROMIUM");
  if (env) return env;
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean)) {
    for (const name of CANDIDATES) {
      try {
        if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
      } catch {
        // Not in this PATH entry: try the next.
      }
    }
  }
  return null;
}

/** Options of the Chromium calls. */
export interface ChromiumOptions {
  /** The executable. @default {findChromium()} */
  chromium?: string;
  /** Virtual time the page may use for its scripts, ms. @default {20000} */
  budgetMs?: number;
  /** Window size in CSS pixels. @default {[1280, 900]} */
  size?: [number, number];
}

async function run(args: string[], options: ChromiumOptions): Promise<string> {
  const exe = options.chromium ?? findChromium();
  if (!exe) throw new Error("Chromium not found: install Debian's chromium (apt-get install chromium) or set CHROMIUM");
  const [w, h] = options.size ?? [1280, 900];
  // A fresh profile each call: concurrent calls must not share one.
  const profile = await Deno.makeTempDir({ prefix: "gp-chromium-" });
  try {
    const out = await new Deno.Command(exe, {
      args: [
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${profile}`,
        `--window-size=${w},${h}`,
        `--virtual-time-budget=${options.budgetMs ?? 20_000}`,
        ...args,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      const err = new TextDecoder().decode(out.stderr).split("\n").slice(-5).join("\n");
      throw new Error(`${exe} exited with ${out.code}: ${err}`);
    }
    return new TextDecoder().decode(out.stdout);
  } finally {
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

/** The page's DOM (serialised HTML) after its scripts ran for the virtual time budget. */
export function dumpDom(file: string, options: ChromiumOptions = {}): Promise<string> {
  return run(["--dump-dom", new URL(`file://${Deno.realPathSync(file)}`).href], options);
}

/** Writes a PNG screenshot of the page's viewport (`options.size`) to `png`. */
export async function screenshot(file: string, png: string, options: ChromiumOptions = {}): Promise<void> {
  const target = png.startsWith("/") ? png : `${Deno.cwd()}/${png}`;
  await run([`--screenshot=${target}`, new URL(`file://${Deno.realPathSync(file)}`).href], options);
  const head = await Deno.readFile(target).catch(() => new Uint8Array(0));
  if (head[0] !== 0x89 || head[1] !== 0x50 || head[2] !== 0x4e || head[3] !== 0x47) {
    throw new Error(`Chromium wrote no PNG to ${target}`);
  }
}
