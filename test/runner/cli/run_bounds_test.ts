/**
 * The bounds of `npx deno task run`'s inputs (issue 29): a worker count, a
 * start time, input files that are not regular files or are too large, and an
 * output folder that cannot be written. Each is refused with exit 2 naming the
 * flag or file and the limit, before the target is contacted: a loopback
 * server counts every request it gets, and must get none.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../support/run_cli.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../../testing/tiny_workload.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RUN = join(ROOT, "runner/cli/run.ts");
const PERMISSIONS = [
  "--allow-net=127.0.0.1",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-run",
];

/** The run CLI as a subprocess, killed after 30 s so that a hang (a FIFO read) fails the test instead of stalling it. */
const run = (args: string[], permissions = PERMISSIONS) =>
  runCli(RUN, args, permissions, { cwd: ROOT, timeoutMs: 30_000 });

Deno.test("run refuses unbounded inputs with exit 2, before the target is contacted", async (t) => {
  let contacted = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    contacted++;
    return Response.json({ object: "list", data: [{ id: "m", object: "model" }] });
  });
  const target = `http://127.0.0.1:${server.addr.port}`;
  const tmp = Deno.makeTempDirSync({ prefix: "run_bounds_" });
  const workload = writeWorkload(tmp, [tinyCase()]);
  const plan = constantPlan(tmp, 2, 1);
  const out = join(tmp, "out");
  const good = (...extra: string[]) => [
    ...["--workload", workload, "--plan", plan, "--target", target, "--out", out, "--no-progress", ...extra],
  ];
  const refused = async (args: string[], expect: RegExp[], permissions?: string[]) => {
    const r = await run(args, permissions);
    assert.equal(r.code, 2, r.stderr);
    for (const p of expect) assert.match(r.stderr, p);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
    assert.equal(contacted, 0, "the target was contacted");
  };
  try {
    await t.step("--workers above 4 per core", async () => {
      const most = 4 * navigator.hardwareConcurrency;
      await refused(good("--workers", "100000"), [new RegExp(`--workers: at most ${most} \\(4 × `), /"100000"/]);
    });

    await t.step("--start-at an hour ago, or beyond 2^31 − 1 ms ahead (Node's timer range)", async () => {
      const past = new Date(Date.now() - 3_600_000).toISOString();
      await refused(good("--start-at", past), [
        /--start-at .*: 3600(\.\d)? s in the past \(at most 1 s allowed\): it would start at once/,
      ]);
      // 25 days = 2,160,000,000 ms > 2,147,483,647 ms
      const far = new Date(Date.now() + 25 * 86_400_000).toISOString();
      await refused(good("--start-at", far), [/--start-at .*: 25\.0 days ahead, more than 2\^31 − 1 ms/]);
    });

    await t.step("--plan a device, a FIFO with no writer, a folder: refused before they are opened", async () => {
      await refused(
        ["--workload", workload, "--plan", "/dev/zero", "--target", target, "--out", out],
        [/\/dev\/zero: cannot read arrival plan: not a regular file \(a device\)/],
      );
      const fifo = join(tmp, "plan.fifo");
      await new Deno.Command("mkfifo", { args: [fifo] }).output();
      await refused(
        ["--workload", workload, "--plan", fifo, "--target", target, "--out", out],
        [/plan\.fifo: cannot read arrival plan: not a regular file \(a FIFO\)/],
      );
      await refused(
        ["--workload", workload, "--plan", tmp, "--target", target, "--out", out],
        [/cannot read arrival plan: not a regular file \(a folder\)/],
      );
    });

    await t.step("a workload.json above 64 MiB is refused before it is read", async () => {
      const big = join(tmp, "big");
      Deno.mkdirSync(big);
      Deno.copyFileSync(join(workload, "class_defaults.json"), join(big, "class_defaults.json"));
      // A sparse file of 64 MiB + 1 byte: no disk is used, and stat reports its size.
      const f = Deno.openSync(join(big, "workload.json"), { write: true, create: true });
      f.truncateSync(64 * 1024 * 1024 + 1);
      f.close();
      await refused(
        ["--workload", big, "--plan", plan, "--target", target, "--out", out],
        [/workload\.json: workload is larger than 64 MiB, the most an input file may hold/],
      );
    });

    await t.step("--routes a FIFO is refused too", async () => {
      const fifo = join(tmp, "routes.fifo");
      await new Deno.Command("mkfifo", { args: [fifo] }).output();
      await refused(
        ["--workload", workload, "--plan", plan, "--routes", fifo, "--out", out],
        [/routes\.fifo: cannot read routes file: not a regular file \(a FIFO\)/],
      );
    });

    await t.step("--out that cannot be written: found before the model list or the pre-flight probe", async () => {
      const file = writeJson(tmp, "a-file.json", {});
      await refused(good().map((a) => a === out ? join(file, "out") : a), [
        /--out .*a-file\.json\/out: .*a-file\.json is not a folder/,
      ]);
      // Write permission for another folder only: the probe file cannot be created in `out`'s nearest folder.
      const elsewhere = Deno.makeTempDirSync();
      await refused(
        good(),
        [/--out .*\/out: cannot write in .*run_bounds_.*: no run could be written/],
        PERMISSIONS.map((p) => p === "--allow-write" ? `--allow-write=${elsewhere}` : p),
      );
      assert.deepEqual([...Deno.readDirSync(tmp)].filter((e) => e.name.startsWith(".goodput-write-probe")), []);
    });

    await t.step("every bad flag is named in one message", async () => {
      const past = new Date(Date.now() - 60_000).toISOString();
      await refused(good("--workers", "100000", "--start-at", past), [
        /invalid input \(2 problems\)/,
        /--workers: at most/,
        /--start-at .* in the past/,
      ]);
    });
  } finally {
    await server.shutdown();
    Deno.removeSync(tmp, { recursive: true });
  }
});
