import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import {
  DENO_CONFIG,
  heldPermissions,
  RUN_SCRIPT,
  RUN_V8_FLAGS,
  workerArgs,
  workerShards,
} from "../../../runner/workers/worker_args.ts";

Deno.test("workerShards() splits shard i of N into shards i·W + k of N·W", () => {
  // shard 1 of 3 over 2 workers: 1·2 + 0 = 2 and 1·2 + 1 = 3, of 3·2 = 6
  assert.deepEqual(workerShards({ index: 1, count: 3 }, 2), [{ index: 2, count: 6 }, { index: 3, count: 6 }]);
  assert.deepEqual(workerShards({ index: 0, count: 1 }, 3), [0, 1, 2].map((index) => ({ index, count: 3 })));
  // Every machine's workers together hold each arrival once: arrival j belongs to shard j mod 6 of 6, and
  // the shards of the 3 machines (2 workers each) are 0–1, 2–3, 4–5.
  const all = [0, 1, 2].flatMap((i) => workerShards({ index: i, count: 3 }, 2).map((s) => s.index));
  assert.deepEqual(all.sort(), [0, 1, 2, 3, 4, 5]);
});

Deno.test("workerArgs() runs the run CLI with the project's config, the run task's V8 flags and its shard", () => {
  const args = workerArgs({
    permissions: ["--allow-read"],
    flags: ["--plan", "p.json"],
    shard: { index: 1, count: 2 },
    runId: "r",
  });
  assert.deepEqual(args, [
    "run",
    "--config",
    DENO_CONFIG,
    RUN_V8_FLAGS,
    "--allow-read",
    RUN_SCRIPT,
    "--plan",
    "p.json",
    "--shard",
    "1/2",
    "--run-id",
    "r",
    "--as-worker",
  ]);
  assert.ok(existsSync(DENO_CONFIG) && existsSync(RUN_SCRIPT));
  // The workers run as `npx deno task run` does.
  const task = JSON.parse(Deno.readTextFileSync(DENO_CONFIG)).tasks.run as string;
  assert.ok(task.includes(` ${RUN_V8_FLAGS} `), task);
});

Deno.test("heldPermissions() passes on what this process holds, net narrowed to the run's allow-list", () => {
  // The tests run with -A: every kind is held whole, net too; the workers still get only the hosts of the run.
  assert.deepEqual(heldPermissions(["127.0.0.2:8787", "127.0.0.1:3128", "127.0.0.2:8787"]), [
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-sys",
    "--allow-run",
    "--allow-ffi",
    "--allow-net=127.0.0.2:8787,127.0.0.1:3128",
  ]);
});
