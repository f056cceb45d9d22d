import assert from "node:assert/strict";
import { join } from "node:path";
import { runJudge } from "../../../runner/judge/judge_run.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { readQuality } from "../../../schema/quality_file.ts";
import { judgeOptions, savedOutputRun } from "../../support/judge_fixture.ts";

/**
 * What the test judge answers to call `n` (0, 1, …) with one user message. Two items of one case with the same answer
 * send the same message: the steps that count calls judge one item at a time (`maxInFlight: 1`), so that each item's
 * calls come together and `n` modulo the calls per item is the item's own call.
 */
type Answer = (n: number, body: { messages: { role: string; content: string }[] }) => Response;

/** A judge endpoint on loopback answering each item's calls by `answer`; it records every call's arrival. */
function testJudge(answer: Answer) {
  const calls = new Map<string, number[]>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    const key = body.messages[1].content as string;
    const seen = calls.get(key) ?? [];
    seen.push(performance.now());
    calls.set(key, seen);
    return answer(seen.length - 1, body);
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, calls, stop: () => server.shutdown() };
}

const completion = (content: string, usage: object | null) =>
  Response.json({
    id: "x",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    ...(usage ? { usage } : {}),
  });

/** A verdict of the design-v1 rubrics: every criterion of either rubric at its top score. */
function topScores(body: { messages: { content: string }[] }): Record<string, number> {
  const ids = [...body.messages[0]!.content.matchAll(/^- ([a-z_]+): /gm)].map((m) => m[1]!);
  return Object.fromEntries(ids.map((id) => [id, id === "coverage" || id === "concise" ? 5 : 1]));
}

async function tableOf(runDir: string) {
  const runId = JSON.parse(Deno.readTextFileSync(join(runDir, "run.json"))).run_id;
  const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
  return (await readQuality(runDir, { runId, requestIds: new Set(requests.map((r) => r.request_id)) }))!;
}

Deno.test("a failing judge is retried within its budget, and what it could not judge is recorded, never a crash", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "judge_failures_" });
  try {
    const fresh = await savedOutputRun(dir, { rps: 15 });
    let n = 0;
    const freshCopy = () => {
      const to = join(dir, `copy-${n++}`);
      Deno.mkdirSync(to);
      for (const e of Deno.readDirSync(fresh)) if (e.isFile) Deno.copyFileSync(join(fresh, e.name), join(to, e.name));
      return to;
    };
    const fast = { backoffMs: () => 1 };

    await t.step("a 429 honoured for its Retry-After, then garbage until the item's retries are spent", async () => {
      const judge = testJudge((i) =>
        i % 3 === 0
          ? Response.json({ error: { message: "slow down" } }, { status: 429, headers: { "retry-after-ms": "150" } })
          : completion("I think this answer is quite good.", { prompt_tokens: 11, completion_tokens: 3 })
      );
      try {
        const run = freshCopy();
        const r = await runJudge(
          judgeOptions(run, judge.url, { retries: 2, retryBudget: 10, maxInFlight: 1, ...fast }),
        );
        const items = r.items;
        assert.deepEqual([r.status, r.judged, r.unjudged], ["done", 0, items]);
        const d = r.details!;
        // Each item: a 429, then two garbage replies (2 retries): 3 calls, 2 of them replies of 11 + 3 tokens.
        assert.equal(d.calls, 3 * items);
        assert.deepEqual(d.failures, { http_429: items, reply_not_json: 2 * items });
        assert.equal(d.input_tokens, 11 * 2 * items);
        assert.equal(d.output_tokens, 3 * 2 * items);
        assert.equal(d.calls_without_reply, items);
        assert.deepEqual(d.unjudged, {
          items,
          reasons: { reply_not_json: items },
          request_ids: (d.unjudged as { request_ids: string[] }).request_ids,
        });
        for (const times of judge.calls.values()) {
          assert.equal(times.length % 3, 0);
          for (let k = 0; k < times.length; k += 3) {
            assert.ok(times[k + 1]! - times[k]! >= 145, `waited ${times[k + 1]! - times[k]!} ms after the 429`);
          }
        }
        assert.deepEqual((await tableOf(run)).rows, []);
      } finally {
        await judge.stop();
      }
    });

    await t.step("the run-wide budget caps the retries: ⌊0.25 × items⌋ in all", async () => {
      const judge = testJudge(() => completion("not json", { prompt_tokens: 5, completion_tokens: 2 }));
      try {
        const r = await runJudge(judgeOptions(freshCopy(), judge.url, { retries: 3, retryBudget: 0.25, ...fast }));
        const budget = Math.floor(0.25 * r.items);
        assert.ok(budget >= 1);
        const d = r.details!;
        assert.equal(d.calls, r.items + budget);
        const reasons = (d.unjudged as { reasons: Record<string, number> }).reasons;
        assert.equal(Object.values(reasons).reduce((a, b) => a + b, 0), r.items);
        assert.ok((reasons["reply_not_json (retry budget spent)"] ?? 0) >= r.items - budget, JSON.stringify(reasons));
      } finally {
        await judge.stop();
      }
    });

    await t.step(
      "an off-scale reply is retried; a verdict without usage has null tokens, said in details",
      async () => {
        const judge = testJudge((i, body) =>
          i % 2 === 0
            ? completion(JSON.stringify({ scores: { ...topScores(body), extra: 9 }, rationale: "x" }), {
              prompt_tokens: 7,
              completion_tokens: 2,
            })
            : completion(JSON.stringify({ scores: topScores(body), rationale: "All there." }), null)
        );
        try {
          const run = freshCopy();
          const r = await runJudge(judgeOptions(run, judge.url, { retryBudget: 1, maxInFlight: 1, ...fast }));
          assert.deepEqual([r.judged, r.unjudged], [r.items, 0]);
          const d = r.details!;
          assert.deepEqual(d.failures, { reply_off_contract: r.items });
          assert.equal(d.replies_without_usage, r.items);
          assert.equal(d.input_tokens, 7 * r.items, "the replies that had usage");
          assert.match(String(d.tokens_note), /carried no usage/);
          const rows = (await tableOf(run)).rows;
          assert.equal(rows.length, r.items);
          for (const row of rows) {
            assert.deepEqual([row.calls, row.input_tokens, row.output_tokens, row.pass], [2, null, null, true]);
          }
        } finally {
          await judge.stop();
        }
      },
    );

    await t.step("a 400 is not retried; the key is sent as a bearer token", async () => {
      const auth = new Set<string | null>();
      const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
        auth.add(req.headers.get("authorization"));
        return Response.json({ error: { message: "bad model k3y-s3cret" } }, { status: 400 });
      });
      try {
        const notes: string[] = [];
        const r = await runJudge(judgeOptions(freshCopy(), `http://127.0.0.1:${server.addr.port}`, {
          key: "k3y-s3cret",
          note: (l) => notes.push(l),
          ...fast,
        }));
        assert.equal(r.details!.calls, r.items);
        assert.deepEqual((r.details!.unjudged as { reasons: object }).reasons, { http_400: r.items });
        assert.deepEqual([...auth], ["Bearer k3y-s3cret"]);
        assert.equal(notes.length, 1);
        assert.ok(!notes[0]!.includes("k3y-s3cret"), notes[0]);
      } finally {
        await server.shutdown();
      }
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
