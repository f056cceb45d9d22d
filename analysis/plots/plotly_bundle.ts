/**
 * The plotly.js bundle from the pinned npm package, read once and made safe
 * to inline in a `<script>` element. Never fetched from a CDN.
 *
 * @module
 */

/** Where the bundle lives: the pinned `plotly.js-dist-min` package in the repo's node_modules. */
export const PLOTLY_BUNDLE_URL = new URL("../../node_modules/plotly.js-dist-min/plotly.min.js", import.meta.url);

let cached: string | null = null;

/**
 * The plotly.js bundle text, read on first use and cached. `</script` is
 * escaped so the text can sit inside an inline `<script>` element.
 * Throws an `Error` naming the file when the npm package is missing.
 */
export function plotlyBundle(): string {
  if (cached !== null) return cached;
  let text: string;
  try {
    text = Deno.readTextFileSync(PLOTLY_BUNDLE_URL);
  } catch (e) {
    throw new Error(
      `cannot read the plotly.js bundle at ${PLOTLY_BUNDLE_URL.pathname}: ${(e as Error).message} ` +
        "(install the pinned npm dependencies: npm ci)",
      { cause: e },
    );
  }
  cached = text.replaceAll("</script", "<\\/script");
  return cached;
}
