import assert from "node:assert/strict";
import { PRODUCTION_BLOCK, readmeBlock, withReadmeBlock } from "../../scripts/_readme_block.ts";

Deno.test("withReadmeBlock() replaces its own block in place and keeps the text around it", async (t) => {
  const base = "# Sample runs\n\nThe table.\n";
  await t.step("a first block goes at the end, after one blank line", () => {
    const once = withReadmeBlock(base, PRODUCTION_BLOCK, "## Production\nrow 1");
    assert.ok(once.startsWith(base + "\n<!-- samples-production: begin"));
    assert.match(readmeBlock(once, PRODUCTION_BLOCK)!, /## Production\nrow 1\n\n<!-- samples-production: end -->$/);
  });
  await t.step("a second write replaces the first, text after the block stays", () => {
    const once = withReadmeBlock(base, PRODUCTION_BLOCK, "old") + "\nA footer.\n";
    const twice = withReadmeBlock(once, PRODUCTION_BLOCK, "new");
    assert.ok(!twice.includes("old") && twice.includes("new"));
    assert.ok(twice.startsWith(base) && twice.endsWith("A footer.\n"));
    assert.equal(twice.split("samples-production: begin").length, 2, "one block");
  });
  await t.step("no block: readmeBlock gives null, and removing it changes nothing", () => {
    assert.equal(readmeBlock(base, PRODUCTION_BLOCK), null);
    assert.equal(withReadmeBlock(base, PRODUCTION_BLOCK, null), base);
  });
});
