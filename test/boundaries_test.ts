import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Every module specifier a file imports, statically or dynamically. */
function importsOf(text: string): string[] {
  const out: string[] = [];
  for (
    const m of text.matchAll(
      /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g,
    )
  ) {
    out.push(m[1] ?? m[2] ?? m[3]!);
  }
  return out;
}

function* tsFiles(dir: string): Generator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* tsFiles(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

/** Resolves a relative specifier to a path under ROOT, or returns the bare specifier. */
function target(file: string, spec: string): string {
  if (spec.startsWith(".")) return relative(ROOT, join(file, "..", spec));
  return spec;
}

const RULES: { from: string; forbidden: RegExp; why: string }[] = [
  {
    from: "runner",
    forbidden: /^(analysis\/|sim\/|nodejs-polars|npm:nodejs-polars|danfojs)/,
    why: "the runner stays lean and talks to analysis only through the log",
  },
  {
    from: "sim",
    forbidden: /^(analysis\/|runner\/|nodejs-polars|npm:nodejs-polars|danfojs)/,
    why: "the simulator is a target, not part of the runner",
  },
  { from: "analysis", forbidden: /^(runner\/|sim\/)/, why: "analysis reads only the raw log" },
  {
    from: "lib",
    forbidden: /^(analysis\/|runner\/|sim\/|nodejs-polars|npm:nodejs-polars|danfojs)/,
    why: "shared helpers import only lib/ and schema/",
  },
  {
    from: "schema",
    forbidden: /^(analysis\/|runner\/|sim\/|nodejs-polars|npm:nodejs-polars)/,
    why: "the contract depends on nothing",
  },
];

Deno.test("the import graph keeps runner, sim, analysis and schema apart", async (t) => {
  for (const rule of RULES) {
    await t.step(`${rule.from}/ imports nothing it must not (${rule.why})`, () => {
      const bad: string[] = [];
      for (const file of tsFiles(join(ROOT, rule.from))) {
        for (const spec of importsOf(Deno.readTextFileSync(file))) {
          const to = target(file, spec);
          if (rule.forbidden.test(to)) bad.push(`${relative(ROOT, file)} imports ${spec}`);
        }
      }
      assert.deepEqual(bad, []);
    });
  }
  await t.step("the scanner sees static, re-export and dynamic imports", () => {
    const found = importsOf(`import a from "x";\nexport * from "./y.ts";\nconst m = await import("z");\nimport "w";`);
    assert.deepEqual(found.sort(), ["./y.ts", "w", "x", "z"]);
  });
});
