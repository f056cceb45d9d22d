/**
 * PNG export of a figure through headless Chromium (offline: the page
 * inlines the plotly.js bundle).
 *
 * @module
 */
import { join } from "node:path";
import type { Figure } from "./figure.ts";
import { screenshot } from "./chromium.ts";
import { pageHtml } from "./html.ts";

/** Options of {@linkcode exportPng}. */
export interface PngOptions {
  /** Image width in pixels. @default {1000} */
  width?: number;
  /** Image height in pixels. @default {the figure's layout height, else 560} */
  height?: number;
  /** The Chromium executable. @default {findChromium()} */
  chromium?: string;
}

/**
 * Renders `fig` alone on a page of exactly width × height and writes its
 * screenshot to `file` (PNG). The disclosure travels in the subtitle.
 * Throws an `Error` when Chromium is missing or writes no PNG.
 *
 * @example
 * ```ts ignore
 * await exportPng(goodputVsLoadFigure(curve), "out/goodput.png", { width: 1200 });
 * ```
 */
export async function exportPng(fig: Figure, file: string, options: PngOptions = {}): Promise<void> {
  const width = options.width ?? 1000;
  const height = options.height ?? (typeof fig.layout.height === "number" ? fig.layout.height : 560);
  if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0)) {
    throw new RangeError(`exportPng: width and height must be positive integers, got ${width} × ${height}`);
  }
  const sized = { ...fig, layout: { ...fig.layout, width, height } } as Figure;
  const css =
    `body{margin:0;padding:0;max-width:none}.gp-figure{margin:0}.gp-plot{width:${width}px;height:${height}px}` +
    "figcaption,h1{display:none}";
  const dir = await Deno.makeTempDir({ prefix: "gp-png-" });
  try {
    const page = join(dir, "figure.html");
    await Deno.writeTextFile(page, pageHtml([sized], { title: fig.title, css }));
    await screenshot(page, file, { size: [width, height], chromium: options.chromium });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
