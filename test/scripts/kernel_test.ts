import assert from "node:assert/strict";
import { join } from "node:path";
import { KERNEL_DISPLAY, KERNEL_NAME, kernelspec, kernelspecDir } from "../../scripts/kernel.ts";

const SCRIPT = new URL("../../scripts/kernel.ts", import.meta.url).pathname;

const kernels = (home: string) => join(home, ".local/share/jupyter/kernels");

Deno.test("npx deno task kernel registers goodput-deno for this Deno and leaves a user's own deno kernel as it was", async () => {
  const home = Deno.makeTempDirSync({ prefix: "goodput-home-" });
  try {
    const own = join(kernels(home), "deno");
    Deno.mkdirSync(own, { recursive: true });
    const mine = JSON.stringify({ argv: ["/opt/my/deno", "jupyter", "--kernel", "--conn", "{connection_file}"] });
    Deno.writeTextFileSync(join(own, "kernel.json"), mine);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-run", SCRIPT],
      env: { HOME: home },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const spec = JSON.parse(Deno.readTextFileSync(join(kernels(home), KERNEL_NAME, "kernel.json")));
    assert.equal(spec.argv[0], Deno.execPath(), "the kernel runs this clone's Deno");
    assert.deepEqual(spec.argv.slice(1), ["jupyter", "--kernel", "--conn", "{connection_file}"]);
    assert.equal(spec.display_name, KERNEL_DISPLAY);
    assert.equal(Deno.readTextFileSync(join(own, "kernel.json")), mine, "the user's deno kernelspec is untouched");
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("the kernel script refuses an argument with an error and exit 2, and --help exits 0", async () => {
  const run = (arg: string) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-run", SCRIPT, arg],
      stdout: "piped",
      stderr: "piped",
    }).output();
  const bad = await run("--bogus");
  assert.equal(bad.code, 2);
  assert.match(new TextDecoder().decode(bad.stderr), /^error: [\s\S]*unknown flag --bogus[\s\S]*--help/);
  const help = await run("--help");
  assert.equal(help.code, 0);
  assert.match(new TextDecoder().decode(help.stdout), /goodput-deno/);
});

Deno.test("the tests' kernelspec folder holds the same kernelspec the task registers", () => {
  const root = Deno.makeTempDirSync({ prefix: "goodput-jupyter-" });
  try {
    assert.equal(kernelspecDir(root, "/x/deno"), root);
    const spec = JSON.parse(Deno.readTextFileSync(join(root, "kernels", KERNEL_NAME, "kernel.json")));
    assert.deepEqual(spec, kernelspec("/x/deno"));
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
