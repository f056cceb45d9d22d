/**
 * A section of a generated README that another script owns: `deno task samples` rewrites data/runs/README.md but
 * keeps the blocks `deno task samples-production`, `deno task samples-engine` and `deno task samples-quality` wrote,
 * and they keep each other's.
 *
 * @module
 */

/** The block of data/runs/README.md that `deno task samples-production` writes. */
export const PRODUCTION_BLOCK = "samples-production";

/** The block of data/runs/README.md that `deno task samples-engine` writes. */
export const ENGINE_BLOCK = "samples-engine";

/** The block of data/runs/README.md that `deno task samples-quality` writes. */
export const QUALITY_BLOCK = "samples-quality";

const begin = (name: string) => `<!-- ${name}: begin (written by its script; kept by the others) -->`;
const end = (name: string) => `<!-- ${name}: end -->`;

/** The block named `name` in `text` (markers included), or null. */
export function readmeBlock(text: string, name: string): string | null {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name), from);
  return from < 0 || to < 0 ? null : text.slice(from, to + end(name).length);
}

/**
 * `text` with the block `name` holding `body` (null: the block removed): in place of the old block, else at the end.
 *
 * @example
 * ```ts
 * import { readmeBlock, withReadmeBlock } from "./_readme_block.ts";
 * import assert from "node:assert/strict";
 * const once = withReadmeBlock("# Runs\n", "extra", "two runs");
 * const twice = withReadmeBlock(once, "extra", "three runs");
 * assert.ok(readmeBlock(twice, "extra")!.includes("three runs"));
 * assert.ok(!twice.includes("two runs"));
 * assert.equal(withReadmeBlock(twice, "extra", null), "# Runs\n");
 * ```
 */
export function withReadmeBlock(text: string, name: string, body: string | null): string {
  const old = readmeBlock(text, name);
  const block = body === null ? "" : `${begin(name)}\n\n${body.trim()}\n\n${end(name)}\n`;
  if (old !== null) {
    const at = text.indexOf(old);
    const rest = text.slice(at + old.length).replace(/^\n/, "");
    const before = text.slice(0, at);
    return body === null ? before.replace(/\n+$/, "\n") + rest : before + block + rest;
  }
  return body === null ? text : `${text.replace(/\n*$/, "\n")}\n${block}`;
}
