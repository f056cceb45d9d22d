import assert from "node:assert/strict";
import { join } from "node:path";
import { runJudge } from "../../../runner/judge/judge_run.ts";
import { judgeOptions, savedOutputRun } from "../../support/judge_fixture.ts";

/** A judge endpoint that answers every call with a passing verdict after `delayMs`, and records when calls came. */
function slowJudge(delayMs: number) {
  const arrivals: number[] = [];
  let open = 0, most = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    arrivals.push(performance.now());
    open++;
    most = Math.max(most, open);
    const body = await req.json();
    const ids = [...(body.messages[0].content as string).matchAll(/^- ([a-z_]+): /gm)].map((m) => m[1]!);
    const scores = Object.fromEntries(ids.map((id) => [id, id === "coverage" || id === "concise" ? 5 : 1]));
    await new Promise((r) => setTimeout(r, delayMs));
    open--;
    return Response.json({
      choices: [{ message: { role: "assistant", content: JSON.stringify({ scores, rationale: "ok" }) } }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, arrivals, most: () => most, stop: () => server.shutdown() };
}

Deno.test("items start open-loop at the stated rate, never early, and at most --max-in-flight at once", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "judge_open_loop_" });
  try {
    const fresh = await savedOutputRun(dir, { rps: 15 });
    await t.step("10 items/s: item i is sent no earlier than i × 100 ms after the pass began", async () => {
      const judge = slowJudge(0);
      try {
        // The pass's first item is due no earlier than this instant (it reads the run's files first), so item i is
        // due no earlier than before + i × 100 ms. Measured from the first arrival instead, a first call that came
        // late (a loaded machine) would make the next, on-time one look early.
        const before = performance.now();
        const r = await runJudge(judgeOptions(fresh, judge.url, { ratePerS: 10 }));
        assert.equal(r.judged, r.items);
        assert.equal(judge.arrivals.length, r.items);
        judge.arrivals.forEach((at, i) => {
          // Timers may fire late, never early.
          assert.ok(at - before >= i * 100, `item ${i} arrived ${at - before} ms after the pass began`);
        });
        const span = judge.arrivals.at(-1)! - judge.arrivals[0]!;
        // At most (items − 1) × 100 ms plus the lag a loaded machine may add, not 1 s of it.
        assert.ok(span < (r.items - 1) * 100 + 1000, `${span} ms`);
        assert.equal(r.details!.late_starts, 0);
      } finally {
        await judge.stop();
      }
    });
    await t.step(
      "a cap of 2 with 1 s answers: never more than 2 at the endpoint, the waiting items counted late",
      async () => {
        // Both first answers end at about 1 s, often in one turn of the loop: item 3, due at 30 ms, then finds a slot
        // free, yet its time came while both were taken, so it is late too (counted as such since this was seen in
        // CI: 5 of 7 counted with 300 ms answers on a loaded machine, 4 of 7 here with 1 s ones).
        const judge = slowJudge(1000);
        try {
          const run = join(dir, "capped");
          Deno.mkdirSync(run);
          for (const e of Deno.readDirSync(fresh)) {
            if (e.isFile) Deno.copyFileSync(join(fresh, e.name), join(run, e.name));
          }
          const r = await runJudge(judgeOptions(run, judge.url, { ratePerS: 100, maxInFlight: 2 }));
          assert.equal(r.judged, r.items);
          assert.equal(judge.most(), 2);
          // Items 0 and 1 start at once; every later one is due within 10 ms × items, long before a slot frees at 1 s.
          assert.equal(r.details!.late_starts, r.items - 2);
          assert.ok((r.details!.max_start_lag_ms as number) >= 1000);
        } finally {
          await judge.stop();
        }
      },
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
