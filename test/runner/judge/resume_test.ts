import assert from "node:assert/strict";
import { join } from "node:path";
import { runJudge } from "../../../runner/judge/judge_run.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import type { QualityRow } from "../../../schema/quality.ts";
import { readQuality } from "../../../schema/quality_file.ts";
import { copyRun, judgeOptions, judgeSim, ROOT, savedOutputRun } from "../../support/judge_fixture.ts";

/** The part's rows, read back and checked. */
async function rowsOf(runDir: string): Promise<QualityRow[]> {
  const runId = JSON.parse(Deno.readTextFileSync(join(runDir, "run.json"))).run_id;
  const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
  const table = await readQuality(runDir, { runId, requestIds: new Set(requests.map((r) => r.request_id)) });
  assert.ok(table);
  return table.rows;
}

/** What a verdict says, without when it was given or how long it took. */
const verdictOf = (r: QualityRow) => [r.request_id, r.source, r.rubric_sha256, r.scores, r.pass, r.rationale];

const journalLines = (runDir: string) => {
  try {
    return Deno.readTextFileSync(join(runDir, "quality", ".judge-sim-judge.jsonl")).trim().split("\n")
      .filter((l) => l.includes('"type":"item"')).length;
  } catch {
    return 0;
  }
};

Deno.test("a judge stopped part-way and resumed gives the rows of an uninterrupted one", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "judge_resume_" });
  const sim = await judgeSim({ sensitivity: 0.8, specificity: 0.7, seed: 9 });
  try {
    const fresh = await savedOutputRun(dir);
    const whole = copyRun(fresh, join(dir, "whole"));
    await runJudge(judgeOptions(whole, sim.url));
    const expected = await rowsOf(whole);
    assert.ok(expected.length >= 8);
    assert.ok(expected.some((r) => r.pass) && expected.some((r) => !r.pass), "verdicts of both kinds");

    await t.step("--limit: 4 items, the journal kept, then resumed", async () => {
      const run = copyRun(fresh, join(dir, "limit"));
      const first = await runJudge(judgeOptions(run, sim.url, { limit: 4 }));
      assert.deepEqual([first.status, first.judged, first.part], ["limit", 4, null]);
      assert.equal(journalLines(run), 4);
      const second = await runJudge(judgeOptions(run, sim.url));
      assert.equal(second.status, "done");
      const rows = await rowsOf(run);
      assert.deepEqual(rows.map(verdictOf), expected.map(verdictOf));
      // Nothing was cut mid-call: each item took the calls it took in the uninterrupted pass.
      assert.deepEqual(
        rows.map((r) => [r.calls, r.input_tokens, r.output_tokens]),
        expected.map((r) => [r.calls, r.input_tokens, r.output_tokens]),
      );
      const sessions = second.details!.sessions as { items: number; stopped: boolean }[];
      assert.deepEqual(sessions.map((s) => [s.items, s.stopped]), [[4, true], [expected.length - 4, false]]);
    });

    await t.step("a stop signal in flight: the items cut short are judged on resume", async () => {
      const run = copyRun(fresh, join(dir, "signal"));
      // A slow engine (40 ms a token, 4 at once), so that items are in flight when the stop comes.
      const slow = await judgeSim({ sensitivity: 0.8, specificity: 0.7, seed: 9 }, "data/sim/slow.json");
      const stop = new AbortController();
      const poll = setInterval(() => {
        if (journalLines(run) >= 1) stop.abort();
      }, 5);
      try {
        const first = await runJudge(judgeOptions(run, slow.url, { ratePerS: 25, signal: stop.signal }));
        assert.equal(first.status, "stopped");
        assert.ok(first.judged >= 1 && first.judged < expected.length, `${first.judged} judged before the stop`);
      } finally {
        clearInterval(poll);
        await slow.stop();
      }
      const cut = Deno.readTextFileSync(join(run, "quality", ".judge-sim-judge.jsonl")).split("\n")
        .filter((l) => l.includes('"reason":"stopped"')).length;
      assert.ok(cut >= 1, "items in flight were cut and journaled as stopped");
      const second = await runJudge(judgeOptions(run, sim.url));
      assert.equal(second.status, "done");
      const rows = await rowsOf(run);
      assert.deepEqual(rows.map(verdictOf), expected.map(verdictOf));
      assert.equal(new Set(rows.map((r) => r.request_id)).size, rows.length, "no duplicates");
    });

    await t.step("the reader refuses a journal left beside a finished part", async () => {
      await runJudge(judgeOptions(whole, sim.url, { model: "sim-judge-2", limit: 2 }));
      await assert.rejects(rowsOf(whole), /\.judge-sim-judge-2\.jsonl: not listed in quality\.json \(a writer stopped/);
    });
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("SIGINT stops `deno task judge` with exit 130 and the same command resumes it", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "judge_sigint_" });
  const sim = await judgeSim({ sensitivity: 0.8, specificity: 0.7, seed: 9 });
  try {
    const fresh = await savedOutputRun(dir);
    const whole = copyRun(fresh, join(dir, "whole"));
    await runJudge(judgeOptions(whole, sim.url));
    const expected = await rowsOf(whole);
    const run = copyRun(fresh, join(dir, "cli"));
    const args = [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      join(ROOT, "runner/judge/cli.ts"),
      run,
      "--target",
      sim.url,
      "--model",
      "sim-judge",
      "--rate",
      "4/s",
      "--quiet",
    ];
    const child = new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "piped", stderr: "piped" }).spawn();
    const deadline = Date.now() + 60_000;
    while (journalLines(run) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    const out = await child.output();
    const dec = new TextDecoder();
    const all = `exit ${out.code}\n${dec.decode(out.stdout)}\n${dec.decode(out.stderr)}`;
    assert.equal(out.code, 130, all);
    assert.match(
      dec.decode(out.stdout),
      /judge: stopped: \d+ of \d+ items judged, journaled in .*resume with the same command/,
      all,
    );
    assert.doesNotMatch(all, /^\s+at /m);
    const again = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "piped", stderr: "piped" })
      .output();
    assert.equal(again.code, 0, dec.decode(again.stderr));
    assert.match(dec.decode(again.stdout), /verdicts written to /);
    const rows = await rowsOf(run);
    assert.deepEqual(rows.map(verdictOf), expected.map(verdictOf));
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});
