/**
 * The notebooks: committed without outputs, importing only the public API,
 * prose before every code cell, and executed headless with the Deno kernel
 * (`jupyter nbconvert`, executing with grace_execute.py) on the committed sample runs and the peer tools' files of
 * data/peers (in the clone: a user's clone has no ../shared beside it): any error or
 * stderr output, a code cell without output, or a figure cell without its
 * figure fails. Without Jupyter and the Deno kernel the execution is skipped
 * loudly locally and fails in CI (CI=true).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KERNEL_NAME } from "../../scripts/kernel.ts";
import { artefactDir, haveJupyterDeno, jupyterEnv } from "../browser/_tools.ts";

const DIR = new URL("../../notebooks/", import.meta.url).pathname;
const HERE = new URL(".", import.meta.url).pathname;
/** Per-cell limit: a cell that hangs (e.g. waiting on a missing file) fails instead of blocking the suite. */
const CELL_TIMEOUT_S = 120;

interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, string | string[]>;
  ename?: string;
  evalue?: string;
}
interface Cell {
  cell_type: string;
  source: string | string[];
  outputs?: Output[];
  execution_count?: number | null;
}

const text = (v: string | string[] | undefined): string => [v ?? ""].flat().join("");
const read = (file: string): { cells: Cell[]; metadata: { kernelspec?: { name?: string } } } =>
  JSON.parse(Deno.readTextFileSync(file));
const notebooks = [...Deno.readDirSync(DIR)].filter((e) => e.name.endsWith(".ipynb")).map((e) => e.name).sort();

/** Figures a cell must display: one per figure constructor it calls (a spread over routes shows at least one). */
const expectedFigures = (src: string): number => (src.includes("show(") ? (src.match(/\w+Figure\(/g) ?? []).length : 0);

Deno.test("the six notebooks exist: explore, compare routes, audit a claim, audit another tool's result, production vs test, the quality baseline", () => {
  assert.deepEqual(notebooks, [
    "01_explore_run.ipynb",
    "02_compare_routes.ipynb",
    "03_audit_claim.ipynb",
    "04_audit_published_result.ipynb",
    "05_production_vs_test.ipynb",
    "06_quality_baseline.ipynb",
  ]);
});

Deno.test("notebooks are committed without outputs, import only ../mod.ts and explain every code cell first", async (t) => {
  for (const name of notebooks) {
    await t.step(name, () => {
      const nb = read(join(DIR, name));
      assert.equal(nb.metadata.kernelspec?.name, KERNEL_NAME, "the project's Deno kernel (npx deno task kernel)");
      nb.cells.forEach((c, i) => {
        if (c.cell_type !== "code") return;
        assert.deepEqual(c.outputs, [], `cell ${i}: outputs stripped`);
        assert.equal(c.execution_count, null, `cell ${i}: execution count stripped`);
        const src = text(c.source);
        const specifiers = [...src.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']/g)]
          .map((m) => m[1] ?? m[2]);
        for (const s of specifiers) assert.equal(s, "../mod.ts", `cell ${i}: imports ${s}`);
        const before = nb.cells[i - 1];
        assert.ok(before?.cell_type === "markdown" && text(before.source).trim().length > 80, `cell ${i}: prose first`);
      });
      const prose = nb.cells.filter((c) => c.cell_type === "markdown").map((c) => text(c.source)).join("\n");
      assert.match(prose, /denominator/i, "the prose states the denominator");
    });
  }
});

/** The files a notebook reads: `../data/...`, the peer tools' files among them (data/peers/). */
const DATA_PATH = /"(\.\.\/data\/[^"]+)"/g;
/** A path that leaves the clone (`../../…`): a user's clone has nothing beside it. */
const OUTSIDE = /["'`]\.\.\/\.\.\//;

Deno.test("every path a notebook reads is in the clone and exists (sample runs, SLO policy, price sheets, claims, peer files)", async (t) => {
  for (const name of notebooks) {
    await t.step(name, () => {
      const code = read(join(DIR, name)).cells.filter((c) => c.cell_type === "code").map((c) => text(c.source));
      const paths = [...code.join("\n").matchAll(DATA_PATH)].map((m) => m[1]!);
      code.forEach((src, i) => assert.ok(!OUTSIDE.test(src), `code cell ${i} reads outside the clone`));
      assert.ok(paths.length > 0, "reads data");
      for (const p of paths) assert.ok(Deno.statSync(join(DIR, p)), `${p} exists`);
    });
  }
});

/** The five ZeroMQ sockets of a Jupyter kernel, by their names in jupyter_client's `KernelManager` settings. */
const KERNEL_SOCKETS = ["shell", "iopub", "stdin", "hb", "control"] as const;

/**
 * Free loopback ports for `kernels` kernels, five each, all distinct: every one is held open until all are chosen, then
 * all are released for the kernels to bind. Left to itself, each nbconvert process picks its kernel's ports alone (a
 * socket bound to port 0, then closed), so kernels started at once can be given the same port. The second kernel then
 * dies ("Address already in use"; nbconvert: "Kernel died before replying to kernel_info"), which two kernels given one
 * port reproduce. A client connected to such a port also hears the other kernel, signed with its key: the likely cause
 * of a run that failed on "Invalid Signature". Each was seen once in 18 runs of the six notebooks on 2026-12-07.
 */
function kernelPorts(kernels: number): number[][] {
  const held = Array.from(
    { length: kernels * KERNEL_SOCKETS.length },
    () => Deno.listen({ hostname: "127.0.0.1", port: 0 }),
  );
  const ports = held.map((l) => l.addr.port);
  for (const l of held) l.close();
  return Array.from(
    { length: kernels },
    (_, k) => ports.slice(k * KERNEL_SOCKETS.length, (k + 1) * KERNEL_SOCKETS.length),
  );
}

/**
 * Executes one notebook into `out` on a kernel bound to `ports` ({@linkcode kernelPorts}); nbconvert's executor with a
 * grace period for late outputs (grace_execute.py).
 */
function execute(name: string, out: string, ports: readonly number[]): Promise<Deno.CommandOutput> {
  return new Deno.Command("jupyter", {
    args: [
      "nbconvert",
      "--to",
      "notebook",
      "--NotebookExporter.preprocessors=grace_execute.GraceExecutePreprocessor",
      // The ports given here, not ports jupyter_client picks and caches on its own.
      "--KernelManager.cache_ports=False",
      ...KERNEL_SOCKETS.map((socket, i) => `--KernelManager.${socket}_port=${ports[i]}`),
      `--GraceExecutePreprocessor.kernel_name=${KERNEL_NAME}`,
      `--GraceExecutePreprocessor.timeout=${CELL_TIMEOUT_S}`,
      "--GraceExecutePreprocessor.iopub_timeout=15",
      "--output-dir",
      out,
      join(DIR, name),
    ],
    cwd: DIR,
    env: { ...jupyterEnv, PYTHONPATH: [HERE, Deno.env.get("PYTHONPATH")].filter(Boolean).join(":") },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test({
  name: "every notebook executes headless with the Deno kernel without an error and shows each figure",
  ignore: !haveJupyterDeno(),
  fn: async (t) => {
    const out = artefactDir("notebooks");
    const started = performance.now();
    // One kernel per notebook, all at once: the notebooks are independent.
    const ports = kernelPorts(notebooks.length);
    const runs = new Map(notebooks.map((name, k) => [name, execute(name, out, ports[k]!)]));
    for (const name of notebooks) {
      await t.step(name, async () => {
        const res = await runs.get(name)!;
        assert.ok(res.success, `nbconvert failed on ${name}:\n${new TextDecoder().decode(res.stderr).slice(-3000)}`);
        const nb = read(join(out, name));
        let figures = 0;
        nb.cells.forEach((c, i) => {
          if (c.cell_type !== "code") return;
          const outputs = c.outputs ?? [];
          for (const o of outputs) {
            assert.notEqual(o.output_type, "error", `${name} cell ${i}: ${o.ename}: ${o.evalue}`);
            assert.ok(
              !(o.output_type === "stream" && o.name === "stderr"),
              `${name} cell ${i} stderr: ${text(o.text)}`,
            );
          }
          assert.ok(outputs.length > 0, `${name} cell ${i}: no output`);
          const shown = outputs.filter((o) =>
            o.output_type === "display_data" && text(o.data?.["text/html"]).includes('class="gp-plot"')
          );
          assert.ok(
            shown.length >= expectedFigures(text(c.source)),
            `${name} cell ${i}: ${shown.length} figure(s) shown`,
          );
          figures += shown.length;
        });
        assert.equal(figures > 0, nb.cells.some((c) => text(c.source).includes("show(")), `${name}: figures shown`);
        console.log(`${name}: done after ${((performance.now() - started) / 1000).toFixed(1)} s, ${figures} figures`);
      });
    }
  },
});
