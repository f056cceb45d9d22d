import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join, posix, relative } from "node:path";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * The relative modules a file's code imports or re-exports, statically or
 * dynamically, type-only included. Comment lines are skipped, so a JSDoc
 * example that imports its own file is not an edge.
 */
function importsOf(text: string): string[] {
  const code = text.split("\n").filter((l) => !/^\s*(\*|\/\*|\/\/)/.test(l)).join("\n");
  const out: string[] = [];
  for (
    const m of code.matchAll(
      /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g,
    )
  ) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (spec.startsWith(".")) out.push(spec);
  }
  return out;
}

/** The import graph of `files` (path → text, paths with "/"): each file's edges to the other files of the set. */
function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const to = importsOf(text).map((s) => posix.normalize(posix.join(posix.dirname(file), s)));
    graph.set(file, [...new Set(to.filter((t) => files.has(t)))].sort());
  }
  return graph;
}

/**
 * Every import cycle of a graph, one per strongly connected component with
 * more than one file (or a file importing itself), written as the path
 * around it from its first file in sorted order: "a.ts → b.ts → a.ts".
 */
function importCycles(graph: Map<string, string[]>): string[] {
  // Tarjan's strongly connected components.
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next), low.set(v, next), next++;
    stack.push(v), onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!));
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do (w = stack.pop()!), onStack.delete(w), c.push(w); while (w !== v);
      components.push(c.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  const cycles: string[] = [];
  for (const c of components) {
    const inside = new Set(c);
    if (c.length === 1 && !(graph.get(c[0]!) ?? []).includes(c[0]!)) continue;
    // One concrete cycle through the component's first file: breadth-first back to it inside the component.
    const start = c[0]!;
    const prev = new Map<string, string>();
    const queue = [start];
    let end: string | null = null;
    while (queue.length && end === null) {
      const v = queue.shift()!;
      for (const w of graph.get(v) ?? []) {
        if (!inside.has(w)) continue;
        if (w === start) {
          end = v;
          break;
        }
        if (!prev.has(w)) prev.set(w, v), queue.push(w);
      }
    }
    const path = [start];
    for (let v = end!; v !== start; v = prev.get(v)!) path.splice(1, 0, v);
    cycles.push([...path, start].join(" → "));
  }
  return cycles.sort();
}

function* tsFiles(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* tsFiles(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

Deno.test("analysis/ has no import cycle, type-only imports included", async (t) => {
  await t.step("no file under analysis/ reaches itself through its imports", () => {
    const files = new Map<string, string>();
    for (const f of tsFiles(join(ROOT, "analysis"))) {
      files.set(relative(ROOT, f).split("\\").join("/"), Deno.readTextFileSync(f));
    }
    assert.ok(files.size > 50, `expected the analysis tree, found ${files.size} files`);
    assert.deepEqual(importCycles(importGraph(files)), []);
  });

  await t.step("a type-only cycle of two files is reported, with the path around it", () => {
    const files = new Map([
      ["a/x.ts", `import { y } from "./y.ts";\nexport const x = 1;`],
      ["a/y.ts", `import type { X } from "./x.ts";\nexport const y = 2;`],
      ["a/z.ts", `import { x } from "./x.ts";`],
    ]);
    assert.deepEqual(importCycles(importGraph(files)), ["a/x.ts → a/y.ts → a/x.ts"]);
  });

  await t.step("a longer cycle through re-exports and sub-folders is reported once", () => {
    const files = new Map([
      ["p/figure.ts", `import { jupyterBundle } from "./out/jupyter.ts";`],
      ["p/out/jupyter.ts", `import {\n  figureHtml,\n} from "./html.ts";`],
      ["p/out/html.ts", `export type { Figure } from "../figure.ts";`],
    ]);
    assert.deepEqual(importCycles(importGraph(files)), [
      "p/figure.ts → p/out/jupyter.ts → p/out/html.ts → p/figure.ts",
    ]);
  });

  await t.step("comment lines (a JSDoc example importing its own file) are not edges; a self-import in code is", () => {
    const doc = `/**\n * @example\n * \`\`\`ts\n * import { x } from "./x.ts";\n * \`\`\`\n */\nexport const x = 1;`;
    assert.deepEqual(importCycles(importGraph(new Map([["x.ts", doc]]))), []);
    assert.deepEqual(importCycles(importGraph(new Map([["x.ts", `export * from "./x.ts";`]]))), ["x.ts → x.ts"]);
  });

  await t.step("an acyclic graph with shared leaves has no cycle", () => {
    const files = new Map([
      ["a.ts", `import "./b.ts";\nimport "./c.ts";`],
      ["b.ts", `const m = await import("./c.ts");`],
      ["c.ts", `export const c = 1;`],
    ]);
    assert.deepEqual(importCycles(importGraph(files)), []);
  });
});
