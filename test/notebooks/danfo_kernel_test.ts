/**
 * toDanfo inside the Deno Jupyter kernel, not only under `deno run`: kernel/danfo.ipynb is executed headless with the
 * goodput-deno kernel and the line its last cell prints is checked. Its first cell leaves a `window` without a DOM in
 * the kernel, which made danfojs load Plotly and the import fail with "reading 'userAgent'". Skipped loudly without
 * Jupyter and the kernel; fails in CI (test/browser/_tools.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KERNEL_NAME } from "../../scripts/kernel.ts";
import { artefactDir, haveJupyterDeno, jupyterEnv } from "../browser/_tools.ts";

const DIR = new URL("./kernel/", import.meta.url).pathname;

interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  ename?: string;
  evalue?: string;
}

Deno.test({
  name: "toDanfo() in the Deno Jupyter kernel keeps columns, values and nulls, with a window global left in the kernel",
  ignore: !haveJupyterDeno(),
  fn: async () => {
    const out = artefactDir("notebooks-kernel");
    const res = await new Deno.Command("jupyter", {
      args: [
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        "--allow-errors",
        `--ExecutePreprocessor.kernel_name=${KERNEL_NAME}`,
        "--ExecutePreprocessor.timeout=120",
        "--output-dir",
        out,
        join(DIR, "danfo.ipynb"),
      ],
      cwd: DIR,
      env: jupyterEnv,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(res.success, `nbconvert: ${new TextDecoder().decode(res.stderr).slice(-2000)}`);
    const nb = JSON.parse(Deno.readTextFileSync(join(out, "danfo.ipynb"))) as {
      cells: { cell_type: string; outputs?: Output[] }[];
    };
    const outputs = nb.cells.flatMap((c) => c.outputs ?? []);
    const errors = outputs.filter((o) => o.output_type === "error").map((o) => `${o.ename}: ${o.evalue}`);
    assert.deepEqual(errors, [], "no cell fails");
    const printed = outputs.filter((o) => o.output_type === "stream" && o.name === "stdout")
      .map((o) => [o.text ?? ""].flat().join("")).join("").trim();
    // JSON.stringify writes danfojs's missing value (null or NaN) as null.
    assert.deepEqual(JSON.parse(printed), {
      columns: ["stage", "accepted"],
      shape: [3, 2],
      stage: ["low", "peak", "burst"],
      accepted: [3, null, 7],
      rows: [2, 1],
      window: "object", // the kernel's global is put back as it was
    });
  },
});
