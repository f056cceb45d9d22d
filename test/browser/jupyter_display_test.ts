import assert from "node:assert/strict";
import { join } from "node:path";
import { KERNEL_DISPLAY, KERNEL_NAME } from "../../scripts/kernel.ts";
import { artefactDir, haveJupyterDeno, jupyterEnv } from "./_tools.ts";

const WATERFALL = new URL("../../analysis/plots/cost_waterfall.ts", import.meta.url).href;
const JUPYTER = new URL("../../analysis/plots/jupyter.ts", import.meta.url).href;

const cell = (source: string) => ({ cell_type: "code", metadata: {}, execution_count: null, outputs: [], source });

Deno.test({
  name: "figures display offline in the Deno Jupyter kernel, the plotly.js bundle in the first output only",
  ignore: !haveJupyterDeno(),
  fn: async () => {
    const dir = artefactDir("jupyter");
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { kernelspec: { name: KERNEL_NAME, display_name: KERNEL_DISPLAY, language: "typescript" } },
      cells: [
        cell(
          `import { costWaterfallFigure } from "${WATERFALL}";\nimport { show } from "${JUPYTER}";\n` +
            `const f = costWaterfallFigure({ currency: "USD", accepted_tasks: 4, disclosure: "n = 5", ` +
            `components: [{ name: "provider", amount: 1.5 }, { name: "retries", amount: 0.5 }] });\nawait show(f);`,
        ),
        cell("await show(f);"),
      ],
    };
    Deno.writeTextFileSync(join(dir, "display.ipynb"), JSON.stringify(nb));
    const out = await new Deno.Command("jupyter", {
      args: ["nbconvert", "--to", "notebook", "--execute", "display.ipynb", "--output", "display.out.ipynb"],
      cwd: dir,
      env: jupyterEnv,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const done = JSON.parse(Deno.readTextFileSync(join(dir, "display.out.ipynb")));
    const html = (c: { outputs: { output_type: string; data?: Record<string, string | string[]> }[] }) =>
      c.outputs.filter((o) => o.output_type === "display_data").map((o) => [o.data!["text/html"]!].flat().join(""));
    const [first, second] = [html(done.cells[0]), html(done.cells[1])];
    assert.equal(first.length, 1, "one figure output in the first cell");
    assert.equal(second.length, 1, "one figure output in the second cell");
    assert.ok(first[0]!.includes("plotly.js v4.1.2"), "the first output carries the bundle");
    assert.ok(!second[0]!.includes("plotly.js v4.1.2"), "later outputs reuse window.Plotly");
    for (const h of [first[0]!, second[0]!]) {
      assert.ok(h.includes('class="gp-plot"') && h.includes("Cost ledger"));
      assert.ok(!/<script[^>]+src=/.test(h), "no external script");
    }
  },
});
