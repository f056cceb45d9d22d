/**
 * The README is a front door: what it measures, the two commands, who starts where, the commands table, links. Its
 * measurements, history and "not met" notes live in docs/ and bench/README.md.
 */
import assert from "node:assert/strict";

const README = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));

Deno.test("the README stays a front door of at most ~150 lines", () => {
  const lines = README.trimEnd().split("\n").length;
  assert.ok(lines <= 150, `README.md has ${lines} lines; move measurements and notes to docs/ or bench/README.md`);
});

Deno.test("the README gives the two commands, the three users' doors and the commands table", () => {
  assert.match(README, /^npm run demo {2,}# /m);
  assert.match(README, /^npm test {2,}# /m);
  for (const who of ["analyst", "procurement", "reviewer"]) assert.match(README, new RegExp(`\\*\\*${who}\\*\\*`));
  for (const task of ["run", "analyze", "knee", "ledger", "compare", "report", "import", "audit"]) {
    assert.match(README, new RegExp("`npx deno task " + task + "[ `]"), `the commands table lists ${task}`);
  }
  assert.match(README, /\(docs\/README\.md\)/);
});

Deno.test("the README carries no measurement tables: figures go to docs/ and bench/README.md", () => {
  // A measured figure in the README is a number with a unit of time or memory; the commands table has none.
  const figures = README.match(/\b\d+(\.\d+)?(–\d+(\.\d+)?)? ?(ms|µs|MB|GB|req\/s)\b/g) ?? [];
  assert.deepEqual(figures, [], "figures in README.md: move them to docs/performance.md or bench/README.md");
});
