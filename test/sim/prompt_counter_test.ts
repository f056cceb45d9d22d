import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { INLINE_WORK, PromptCounter, promptRefusal } from "../../sim/prompt_counter.ts";
import { Responder } from "../../sim/responder.ts";
import { simTokenizer } from "../../sim/tokenizer.ts";
import { chat, profile, testWorkload, unknownPrompt } from "./_fixtures.ts";

const health = async (url: string) => (await (await fetch(`${url}/health`)).json()) as { tokenizing: number };

Deno.test("the bound applies to a prompt as a whole: characters and BPE work summed over its messages", () => {
  const pattern = simTokenizer().pattern;
  // "x" × 1,500 is one pre-token piece of 1,500 bytes: work 1,500² = 2,250,000 ≤ 4,194,304.
  assert.equal(promptRefusal(["x".repeat(1500)], pattern), null);
  // Two of them: 2 × 2,250,000 = 4,500,000 > 4,194,304.
  assert.equal(promptRefusal(["x".repeat(1500), "y".repeat(1500)], pattern), "BPE work 4500000 > 4194304");
  // 1,048,577 characters of short words: over the character bound before any work is summed.
  assert.equal(promptRefusal(["ab ".repeat(349_525) + "ab"], pattern), "1048577 chars > 1048576");
});

Deno.test("a counter counts small prompts at once and large ones in its worker, with the same counts", async () => {
  const tok = simTokenizer();
  const counter = new PromptCounter(tok);
  try {
    // "x" × 63 and "hello": pieces of 63 and 5 bytes, work 63² + 5² = 3,969 + 25 = 3,994 ≤ 4,096: inline.
    const small = counter.count(["x".repeat(63), "hello"]);
    assert.equal(counter.pending, 0);
    assert.deepEqual(await small, { tokens: [tok.count("x".repeat(63)), tok.count("hello")] });
    assert.equal(64 * 64, INLINE_WORK);
    // "x" × 64 and "hello": 4,096 + 25 = 4,121 > 4,096: the worker.
    const over = counter.count(["x".repeat(64), "hello"]);
    assert.equal(counter.pending, 1);
    assert.deepEqual(await over, { tokens: [tok.count("x".repeat(64)), tok.count("hello")] });
    // "x" × 65: work 4,225 > 4,096: counted in the worker, pending until it answers.
    const text = "x".repeat(65) + " and some words";
    const large = counter.count([text]);
    assert.equal(counter.pending, 1);
    assert.deepEqual(await large, { tokens: [tok.count(text)] });
    assert.equal(counter.pending, 0);
    assert.deepEqual(await counter.count(["x".repeat(6000)]), { refused: "BPE work 36000000 > 4194304" });
  } finally {
    counter.stop();
  }
});

Deno.test("the responder's counted texts give the same answer as counting them itself", () => {
  const tok = simTokenizer();
  const r = new Responder(testWorkload(), profile().behaviour, tok);
  const msgs = [{ role: "user" as const, content: "some prompt it does not know", toolCallText: "" }];
  const draws = { accuracy: 0, validity: 0, variant: 0 };
  const opts = { maxTokens: 16, degraded: false, prefixCaching: true };
  const texts = r.countedTexts(msgs);
  assert.deepEqual(texts, ["some prompt it does not know"]);
  const counted = r.respond(msgs, draws, opts, texts.map((t) => tok.count(t)));
  assert.deepEqual(counted, r.respond(msgs, draws, opts));
});

Deno.test("the simulator answers /health while it counts a pathological prompt, and refuses one over the bound", async (t) => {
  const sim = await startSim({ profile: profile(), quiet: true });
  try {
    await t.step(
      "x × 1,000 (work 1,000² = 1,000,000, under the bound): /health answers while it is counted",
      async () => {
        let settled = false;
        const slow = chat(sim.url, { messages: unknownPrompt("x".repeat(1000)), max_tokens: 4 }).then(async (r) => {
          const body = await r.json();
          settled = true;
          return { status: r.status, body };
        });
        // Each /health below is sent after the pathological request. Counting on the event loop could never answer
        // one with `tokenizing: 1`: the count would start and end inside one turn of the loop.
        let seen = false;
        for (let i = 0; i < 6000 && !settled && !seen; i++) {
          const h = await health(sim.url);
          seen = h.tokenizing === 1 && !settled;
          if (!seen) await new Promise((r) => setTimeout(r, 5));
        }
        assert.ok(seen, "no /health answered while the prompt was being counted");
        const { status, body } = await slow;
        assert.equal(status, 200);
        // o200k_base encodes a run of x as 8-character tokens: 1,000 / 8 = 125.
        assert.equal(body.usage.prompt_tokens, 125);
        assert.equal((await health(sim.url)).tokenizing, 0);
      },
    );
    await t.step("x × 6,000 (work 6,000² = 36,000,000 > 4,194,304): 400 prompt_too_complex", async () => {
      const res = await chat(sim.url, { messages: unknownPrompt("x".repeat(6000)), max_tokens: 4 });
      assert.equal(res.status, 400);
      const { error } = await res.json();
      assert.equal(error.type, "invalid_request_error");
      assert.equal(error.code, "prompt_too_complex");
      assert.equal(error.param, "messages");
      assert.match(error.message, /BPE work 36000000 > 4194304/);
    });
  } finally {
    await sim.stop();
  }
});

Deno.test("a prompt still being counted when the simulator stops gets 503, and stop() returns", async () => {
  const sim = await startSim({ profile: profile(), quiet: true });
  const pending = chat(sim.url, { messages: unknownPrompt("x".repeat(2000)), max_tokens: 4 });
  for (let i = 0; i < 6000 && (await health(sim.url)).tokenizing === 0; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await sim.stop();
  const res = await pending;
  assert.equal(res.status, 503);
  assert.equal((await res.json()).error.code, "service_unavailable");
});
