import assert from "node:assert/strict";
import { startSim } from "../../../sim/mod.ts";
import { FAST_ENGINE, profile, sseEvents, testWorkload } from "../_fixtures.ts";

const perfect = { default: { accuracy: 1, refusal_rate: 1, json_validity: 1, tool_accuracy: 1 } };
const DEPLOYMENT = "/openai/deployments/gpt-4o-prod/chat/completions";

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

Deno.test("Azure OpenAI: the deployment path answers in the chat format, the deployment is the model", async (t) => {
  const w = testWorkload();
  const c = w.cases.find((x) => x.case_id === "prose-1")!;
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, behaviour: perfect }),
    workload: w,
    quiet: true,
  });
  try {
    await t.step("a whole answer: the reference text, usage, model = deployment (the body names none)", async () => {
      const res = await post(`${sim.url}${DEPLOYMENT}?api-version=2024-10-21`, {
        messages: c.messages,
        max_tokens: 200,
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-sim-case-id"), "prose-1");
      const body = await res.json();
      assert.equal(body.object, "chat.completion");
      assert.equal(body.model, "gpt-4o-prod");
      assert.ok(body.choices[0].message.content.startsWith(c.reference_output));
      assert.equal(body.choices[0].finish_reason, "stop");
      assert.deepEqual(body.usage, {
        prompt_tokens: c.input_tokens,
        completion_tokens: c.expected_output_tokens,
        total_tokens: c.input_tokens + c.expected_output_tokens,
        prompt_tokens_details: { cached_tokens: 0 },
      });
    });

    await t.step("a body's model does not override the deployment", async () => {
      const res = await post(`${sim.url}${DEPLOYMENT}?api-version=2024-10-21`, {
        model: "something-else",
        messages: c.messages,
        max_tokens: 5,
      });
      assert.equal((await res.json()).model, "gpt-4o-prod");
    });

    await t.step("a stream: chat.completion.chunk events with usage, then [DONE]", async () => {
      const res = await post(`${sim.url}${DEPLOYMENT}?api-version=2024-10-21`, {
        messages: c.messages,
        max_tokens: 200,
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.equal(res.headers.get("content-type"), "text/event-stream");
      const events = sseEvents(await res.text());
      assert.equal(events.at(-1), "[DONE]");
      const chunks = events.slice(0, -1) as { model: string; choices: { delta: { content?: string } }[] }[];
      assert.ok(chunks.every((ch) => ch.model === "gpt-4o-prod"));
      const text = chunks.slice(1, -2).map((ch) => ch.choices[0]!.delta.content).join("");
      assert.ok(text.startsWith(c.reference_output), text);
    });

    await t.step("the v1 path needs no api-version; the deployment is the body's model", async () => {
      const res = await post(`${sim.url}/openai/v1/chat/completions`, {
        model: "gpt-4o-mini-dev",
        messages: c.messages,
        max_tokens: 5,
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).model, "gpt-4o-mini-dev");
    });

    await t.step("a bad body: 400 in Azure's format naming the field", async () => {
      const res = await post(`${sim.url}${DEPLOYMENT}?api-version=2024-10-21`, { messages: [] });
      assert.equal(res.status, 400);
      const { error } = await res.json();
      assert.equal(error.param, "messages");
      assert.equal(error.type, "invalid_request_error");
      assert.equal(error.code, "invalid_value");
    });

    await t.step("GET on a deployment path is an unknown path, as before", async () => {
      const res = await fetch(`${sim.url}${DEPLOYMENT}?api-version=2024-10-21`);
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });
  } finally {
    await sim.stop();
  }
});

Deno.test("Azure OpenAI: a deployment path without api-version is refused 400 before any draw", async () => {
  const w = testWorkload();
  // Half the answers wrong: the verdicts follow the seeded draws, so a refusal that took a draw would shift them.
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, behaviour: { default: { accuracy: 0.5, json_validity: 0.5 } } }),
    workload: w,
    quiet: true,
    seed: 5,
  });
  try {
    const verdicts = async (refuseFirst: boolean) => {
      sim.reset();
      const out: string[] = [];
      for (const c of w.cases.slice(0, 4)) {
        if (refuseFirst) {
          const refused = await post(`${sim.url}${DEPLOYMENT}`, { messages: c.messages, max_tokens: 5 });
          assert.equal(refused.status, 400);
          const { error } = await refused.json();
          assert.equal(error.code, "BadRequest");
          assert.equal(error.param, "api-version");
          assert.match(error.message, /api-version/);
        }
        const res = await post(`${sim.url}${DEPLOYMENT}?api-version=2024-10-21`, {
          messages: c.messages,
          max_tokens: 5,
        });
        out.push(res.headers.get("x-sim-verdict")!);
        await res.body?.cancel();
      }
      return out;
    };
    const plain = await verdicts(false);
    assert.ok(new Set(plain).size > 1, `the draws matter here: ${plain}`);
    assert.deepEqual(await verdicts(true), plain);
  } finally {
    await sim.stop();
  }
});

Deno.test("Azure OpenAI: the quota's x-ratelimit-* headers on every answer, its 429 in Azure's format", async () => {
  const sim = await startSim({
    profile: profile({
      engine: FAST_ENGINE,
      rate_limits: { requests_per_minute: 60, tokens_per_minute: 6000, window_s: 2 },
    }),
    quiet: true,
  });
  try {
    const ask = () =>
      post(`${sim.url}${DEPLOYMENT}?api-version=2024-10-21`, {
        messages: [{ role: "user", content: "Hi" }],
        max_tokens: 9,
      });
    // A 2 s bucket of 60 RPM holds 2 requests; each request takes prompt 1 + max_tokens 9 = 10 of 200 tokens.
    const first = await ask();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-ratelimit-limit-requests"), "60");
    assert.equal(first.headers.get("x-ratelimit-remaining-requests"), "1");
    assert.equal(first.headers.get("x-ratelimit-limit-tokens"), "6000");
    assert.equal(first.headers.get("x-ratelimit-remaining-tokens"), "190");
    assert.match(first.headers.get("x-ratelimit-reset-requests")!, /^\d+ms$|^1(\.\d+)?s$/);
    await first.body?.cancel();
    await (await ask()).body?.cancel();
    const refused = await ask();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.ok(Number(refused.headers.get("retry-after-ms")) > 0);
    assert.equal(refused.headers.get("x-ratelimit-remaining-requests"), "0");
    const { error } = await refused.json();
    assert.equal(error.code, "429");
    assert.match(error.message, /Rate limit reached for requests per min/);
  } finally {
    await sim.stop();
  }
});
