import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { InputError } from "../../../schema/errors.ts";
import type { RequestRow } from "../../../schema/events.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { runCli } from "../../support/run_cli.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { fixtureManifest, POLICY as FIXTURE_POLICY } from "../hand_fixture.ts";
import { asShard, att, req, writeRun } from "../_fixture.ts";

const quiet = { onWarning: () => {} };
/** The fixture's window (stages low and peak: 20 s) and one class, chat: e2e ≤ 5000 ms and the four gates. */
const POLICY: SloPolicy = { ...FIXTURE_POLICY, classes: { chat: FIXTURE_POLICY.default } };
const CLI = new URL("../../../analysis/cli/analyze.ts", import.meta.url).pathname;

/**
 * Eight accepted requests r0000000..r0000007 at 10 s + 2 s·i, all inside the policy's window (stages low and peak,
 * 20 s): e2e 1000 ms ≤ chat's 5000 ms, every gate true. Whole run: offered 8, accepted 8,
 * goodput 8 / 20 s = 0.4/s. Shard i of 2 holds the ids with index ≡ i (mod 2), as the runner deals them.
 */
function rows(index: number, count: number): RequestRow[] {
  return Array.from({ length: 8 }, (_, i) => i).filter((i) => i % count === index).map((i) => {
    const t = 10_000 + 2_000 * i;
    const id = `r${String(i).padStart(7, "0")}`;
    return req({ request_id: id, class: "chat", stage: t < 20_000 ? "low" : "peak", scheduled_ms: t, shard: index });
  }).map((r) => ({ ...r, completed_ms: r.scheduled_ms + 1000 }));
}

/** Writes folder `name` under `root` holding shard `index` of `count` (its rows, attempts, and run.json). */
function writeShard(root: string, name: string, index: number, count: number, over: Partial<RunManifest> = {}) {
  const requests = rows(index, count);
  const attempts = requests.map((r) => att({ request_id: r.request_id, sent_ms: r.scheduled_ms }));
  writeRun(join(root, name), { ...asShard(fixtureManifest(), index, count), ...over }, { requests, attempts });
}

/** Shards 0 and 1 of 2 in their own folders. */
function wholeSet(): string {
  const root = Deno.makeTempDirSync();
  for (const i of [0, 1]) writeShard(root, `shard-${i}-of-2`, i, 2);
  return root;
}

/** The problems of the InputError that `load` throws (loadRun and scanRun alike). */
async function refusal(root: string): Promise<string[]> {
  const problems: string[][] = [];
  for (const open of [loadRun, scanRun]) {
    const e = await (open as typeof loadRun)(root, quiet).then(() => null, (e: unknown) => e);
    assert.ok(e instanceof InputError, `${open.name} accepted ${root}`);
    assert.match(e.message, /not one whole run/);
    problems.push(e.problems);
  }
  assert.deepEqual(problems[0], problems[1]);
  return problems[0]!;
}

Deno.test("a whole shard set is one run: 8 offered, 8 accepted, 0.4/s", async () => {
  const run = await loadRun(wholeSet(), quiet);
  assert.deepEqual(run.shard_set, { count: 2, present: [0, 1], missing: [] });
  const g = goodput(run, POLICY);
  assert.equal(g.overall.offered, 8);
  assert.equal(g.overall.accepted, 8);
  assert.equal(g.overall.accepted_goodput, 0.4); // 8 / 20 s
  assert.equal(g.disclosure.files.partial, undefined);
});

Deno.test("shard sets that are not one whole run are refused, every problem named at once", async (t) => {
  await t.step("a missing shard", async () => {
    const root = wholeSet();
    Deno.removeSync(join(root, "shard-1-of-2"), { recursive: true });
    const p = await refusal(root);
    assert.equal(p.length, 1);
    assert.match(p[0]!, /1 of 2 shards missing: shard-1-of-2; .*--partial-shards/);
  });

  await t.step("one shard folder analysed by itself", async () => {
    const p = await refusal(join(wholeSet(), "shard-0-of-2"));
    assert.match(p.join("\n"), /1 of 2 shards missing: shard-1-of-2/);
  });

  await t.step("a shard copied in twice under another folder name", async () => {
    const root = Deno.makeTempDirSync();
    writeShard(root, "shard-0-of-2", 0, 2);
    writeShard(root, "shard-1-of-2", 0, 2); // shard 0's folder, copied as shard 1's
    const p = (await refusal(root)).join("\n");
    assert.match(p, /shard-1-of-2\/run\.json: plan\.shard is 0 of 2, but its folder is shard-1-of-2/);
    assert.match(p, /shard 0 is in 2 folders: shard-0-of-2, shard-1-of-2/);
    assert.match(p, /1 of 2 shards missing: shard-1-of-2/);
  });

  await t.step("shards of different N side by side", async () => {
    const root = wholeSet();
    writeShard(root, "shard-0-of-3", 0, 3);
    const p = (await refusal(root)).join("\n");
    assert.match(p, /shards disagree on the shard count N: shard-0-of-2 \(0 of 2\), shard-0-of-3 \(0 of 3\), /);
    assert.match(p, /shard 0 is in 2 folders: shard-0-of-2, shard-0-of-3/);
  });

  await t.step("a folder whose run.json names another shard", async () => {
    const root = Deno.makeTempDirSync();
    writeShard(root, "shard-0-of-2", 1, 2);
    writeShard(root, "shard-1-of-2", 0, 2);
    const p = await refusal(root);
    assert.equal(p.length, 2);
    assert.match(p[0]!, /shard-0-of-2\/run\.json: plan\.shard is 1 of 2, but its folder is shard-0-of-2/);
    assert.match(p[1]!, /shard-1-of-2\/run\.json: plan\.shard is 0 of 2, but its folder is shard-1-of-2/);
  });

  await t.step("shards of different schedules: another plan seed, or another workload", async () => {
    for (const over of [{ seed: 8 }, { workload: "ab".repeat(32) }]) {
      const root = Deno.makeTempDirSync();
      writeShard(root, "shard-0-of-2", 0, 2);
      const m = asShard(fixtureManifest(), 1, 2);
      writeShard(root, "shard-1-of-2", 1, 2, {
        plan: { ...m.plan, spec: { ...m.plan.spec, seed: over.seed ?? m.plan.spec.seed } },
        workload: { ...m.workload, sha256: over.workload ?? m.workload.sha256 },
      });
      const p = await refusal(root);
      assert.equal(p.length, 1);
      assert.match(p[0]!, /different schedules \(sha256 of run\.json plan\.spec and workload\.sha256\): shard-0-of-2/);
    }
  });

  await t.step("each shard's own schedule.csv hash differs by design and is not a problem", async () => {
    const root = Deno.makeTempDirSync();
    writeShard(root, "shard-0-of-2", 0, 2);
    writeShard(root, "shard-1-of-2", 1, 2, {
      plan: { ...asShard(fixtureManifest(), 1, 2).plan, schedule_sha256: "ab".repeat(32) },
    });
    const m = JSON.parse(Deno.readTextFileSync(join(root, "shard-1-of-2", "run.json")));
    assert.equal(m.plan.schedule_sha256, "ab".repeat(32));
    await assert.doesNotReject(() => loadRun(root, { onWarning: () => {} }));
  });

  await t.step("shards of different runs", async () => {
    const root = Deno.makeTempDirSync();
    writeShard(root, "shard-0-of-2", 0, 2);
    writeShard(root, "shard-1-of-2", 1, 2, { run_id: "other-run" });
    const p = await refusal(root);
    assert.match(p.join("\n"), /shards belong to different runs: fixture-run, other-run/);
  });

  await t.step("a request id in two shards (a shard's rows copied into another)", async () => {
    const root = wholeSet();
    const dir = join(root, "shard-1-of-2");
    // Shard 1 gets r0000000 and r0000002 of shard 0 on top of its own four: 6 rows, 2 of them duplicates.
    const requests = [...rows(1, 2), ...rows(0, 2).slice(0, 2)];
    const attempts = requests.map((r) => att({ request_id: r.request_id, sent_ms: r.scheduled_ms }));
    writeRun(dir, asShard(fixtureManifest(), 1, 2), { requests, attempts });
    const p = await refusal(root);
    assert.equal(p.length, 1);
    assert.match(
      p[0]!,
      /2 request_id values appear in more than one row of the shards' requests logs \(e\.g\. r0000000, r0000002\)/,
    );
  });
});

Deno.test("allowPartialShards analyses the present shards alone, loudly: 4 offered, 0.2/s", async () => {
  const root = wholeSet();
  Deno.removeSync(join(root, "shard-1-of-2"), { recursive: true });
  for (const open of [loadRun, scanRun]) {
    const run = await (open as typeof loadRun)(root, { ...quiet, allowPartialShards: true });
    assert.deepEqual(run.shard_set, { count: 2, present: [0], missing: [1] });
    assert.match(run.warnings.join("\n"), /PARTIAL ANALYSIS: 1 of 2 shards missing \(shard-1-of-2\)/);
    const g = goodput(run, POLICY);
    // Shard 0 holds r0, r2, r4, r6: offered 4, accepted 4; the window is still 20 s: 4 / 20 = 0.2/s.
    assert.equal(g.overall.offered, 4);
    assert.equal(g.overall.accepted_goodput, 0.2);
    assert.deepEqual(g.disclosure.files.partial, { shard_count: 2, missing_shards: [1] });
    assert.match(g.disclosure.inclusion_rules[0]!, /^PARTIAL SHARD SET: .*this run: shards 0 of 2 read, 1 missing$/);
  }
});

Deno.test("allowPartialShards still refuses every problem other than a missing shard", async () => {
  const root = Deno.makeTempDirSync();
  writeShard(root, "shard-0-of-2", 0, 2);
  writeShard(root, "shard-0-of-3", 0, 3);
  const e = await loadRun(root, { ...quiet, allowPartialShards: true }).then(() => null, (e: unknown) => e);
  assert.ok(e instanceof InputError);
  assert.match(e.problems.join("\n"), /disagree on the shard count N/);
});

Deno.test("the analyze CLI exits 2 on a missing shard and analyses a partial set with --partial-shards", async () => {
  const root = wholeSet();
  Deno.removeSync(join(root, "shard-1-of-2"), { recursive: true });
  const slo = join(root, "slo.json");
  Deno.writeTextFileSync(slo, JSON.stringify(POLICY));
  const perms = ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"];
  const refused = await runCli(CLI, [root, "--slo", slo], perms);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /1 of 2 shards missing: shard-1-of-2/);
  assert.doesNotMatch(refused.stderr, /\n\s+at /); // no stack trace
  const partial = await runCli(CLI, [root, "--slo", slo, "--partial-shards"], perms);
  assert.equal(partial.code, 0, partial.stderr);
  assert.match(partial.stdout, /PARTIAL: 1 of 2 shards, missing 1/);
  assert.match(partial.stdout, /PARTIAL SHARD SET/);
  assert.match(partial.stderr + partial.stdout, /PARTIAL ANALYSIS: 1 of 2 shards missing/);
});
