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
  { from: "analysis", forbidden: /^(runner\/|sim\/|importers\/)/, why: "analysis reads only the raw log" },
  {
    from: "importers",
    forbidden: /^(analysis\/|sim\/|runner\/(?!sinks\/|version\.ts$)|nodejs-polars|npm:nodejs-polars|danfojs)/,
    why: "an import is written with the runner's own log writers (runner/sinks/, and its version for the files' " +
      "creator), so an imported run's files are the contract's byte for byte; nothing else of the runner, and no " +
      "analysis: the analysis reads the written folder like any run",
  },
  {
    from: "importers/sources",
    forbidden: /^(analysis\/|runner\/|sim\/|nodejs-polars|npm:nodejs-polars|danfojs)/,
    why: "a peer tool's files are read with schema/ and lib/ only, before anything is mapped onto the contract",
  },
  {
    from: "lib",
    forbidden: /^(analysis\/|runner\/|sim\/|nodejs-polars|npm:nodejs-polars|danfojs)/,
    why: "shared helpers import only lib/ and schema/",
  },
  {
    from: "schema",
    forbidden: /^(analysis\/|runner\/|sim\/|lib\/|nodejs-polars|npm:nodejs-polars)/,
    why: "the contract depends on nothing",
  },
  {
    from: "lib",
    forbidden: /^(analysis\/|runner\/|sim\/|testing\/|test\/|nodejs-polars|npm:nodejs-polars|danfojs)/,
    why: "the shared non-contract helpers stand on the contract alone, so runner, sim and analysis may all import them",
  },
  {
    from: "engine",
    forbidden: /^(?!lib\/|schema\/|engine\/|node:|zod$)/,
    why: "the engine is a target like the simulator: it stands on lib/ and schema/ alone (and zod, node: modules)",
  },
  {
    from: "testing",
    forbidden: /^(analysis\/|runner\/|sim\/|test\/|bench\/)/,
    why: "the fixtures shared by tests and benchmarks stand on the contract and lib/ alone",
  },
  {
    from: "recorder",
    // A file of this repository outside schema/ and recorder/, the analysis's dataframes, or a remote module.
    forbidden: /^(?!(schema|recorder)\/)[^:]*\.(ts|js|mjs)$|^(npm:)?nodejs-polars|^danfojs|^(jsr|https?):/,
    why: "the recorder runs inside other people's services (Deno, Node, bundled): it stands on the contract " +
      "(schema/), npm packages and node: modules alone",
  },
  {
    from: "bench",
    forbidden: /^test\//,
    why: "benchmarks take their shared fixtures from testing/, not from the tests",
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
  await t.step("recorder/ code calls no Deno API (it runs unchanged in Node)", () => {
    const bad: string[] = [];
    for (const file of tsFiles(join(ROOT, "recorder"))) {
      // Comments (JSDoc examples run under deno test) are not the recorder's code.
      const code = Deno.readTextFileSync(file).replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      if (/\bDeno\./.test(code)) bad.push(relative(ROOT, file));
    }
    assert.deepEqual(bad, []);
  });
  await t.step("the recorder rule refuses the runner, lib/ and the top-level mod.ts, and takes npm and node:", () => {
    const rule = RULES.find((r) => r.from === "recorder")!.forbidden;
    for (const bad of ["runner/clock.ts", "lib/command.ts", "mod.ts", "analysis/mod.ts", "nodejs-polars"]) {
      assert.ok(rule.test(bad), bad);
    }
    for (const ok of ["schema/events.ts", "recorder/task.ts", "node:fs", "zod", "hyparquet-writer", "csv-parse/sync"]) {
      assert.ok(!rule.test(ok), ok);
    }
  });
  await t.step("the scanner sees static, re-export and dynamic imports", () => {
    const found = importsOf(`import a from "x";\nexport * from "./y.ts";\nconst m = await import("z");\nimport "w";`);
    assert.deepEqual(found.sort(), ["./y.ts", "w", "x", "z"]);
  });
});

Deno.test("analysis/ is one folder per concern, each with a mod.ts, and test/analysis/ mirrors it", async (t) => {
  const dirs = (p: string) =>
    [...Deno.readDirSync(join(ROOT, p))].filter((e) => e.isDirectory).map((e) => e.name).sort();
  const concerns = dirs("analysis");
  await t.step("analysis/ holds only its mod.ts and the concern folders", () => {
    const files = [...Deno.readDirSync(join(ROOT, "analysis"))].filter((e) => !e.isDirectory).map((e) => e.name);
    assert.deepEqual(files, ["mod.ts"]);
  });
  await t.step("every concern folder but cli/ (the command scripts) has a mod.ts with a module doc", () => {
    const missing = concerns.filter((d) => d !== "cli").filter((d) => {
      try {
        return !/^\/\*\*[\s\S]*?@module[\s\S]*?\*\//.test(Deno.readTextFileSync(join(ROOT, "analysis", d, "mod.ts")));
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return true;
        throw e;
      }
    });
    assert.deepEqual(missing, []);
  });
  await t.step("every folder of test/analysis/ is a concern folder of analysis/", () => {
    assert.deepEqual(dirs("test/analysis").filter((d) => !concerns.includes(d)), []);
  });
});
