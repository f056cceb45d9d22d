import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { simTokenizer } from "../../sim/tokenizer.ts";
import { chat, FAST_ENGINE, profile, sseEvents, testWorkload, unknownPrompt } from "./_fixtures.ts";

type Chunk = {
  object: string;
  choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: Record<string, unknown>;
};

const perfect = { default: { accuracy: 1, refusal_rate: 1, json_validity: 1, tool_accuracy: 1 } };

Deno.test("chat completions speak the OpenAI wire format", async (t) => {
  const w = testWorkload();
  const byId = (id: string) => w.cases.find((c) => c.case_id === id)!;
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, behaviour: perfect }),
    workload: w,
    quiet: true,
  });
  try {
    await t.step("a stream: role first, one chunk per token, finish, usage last before [DONE]", async () => {
      const c = byId("prose-1");
      const res = await chat(sim.url, {
        messages: c.messages,
        max_tokens: 200,
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/event-stream");
      const events = sseEvents(await res.text());
      assert.equal(events.at(-1), "[DONE]");
      const chunks = events.slice(0, -1) as Chunk[];
      for (const ch of chunks) assert.equal(ch.object, "chat.completion.chunk");
      assert.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
      const usage = chunks.at(-1)!;
      assert.deepEqual(usage.choices, []);
      const tokens = chunks.slice(1, -2);
      const text = tokens.map((ch) => ch.choices[0]!.delta.content).join("");
      assert.ok(text.startsWith(c.reference_output), text);
      assert.equal(tokens.length, c.expected_output_tokens, "padded to expected_output_tokens, one chunk per token");
      assert.equal(simTokenizer().count(text), c.expected_output_tokens);
      assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, "stop");
      assert.deepEqual(usage.usage, {
        prompt_tokens: c.input_tokens,
        completion_tokens: c.expected_output_tokens,
        total_tokens: c.input_tokens + c.expected_output_tokens,
        prompt_tokens_details: { cached_tokens: 0 },
      });
    });

    await t.step("without include_usage there is no usage chunk", async () => {
      const res = await chat(sim.url, { messages: byId("json-1").messages, max_tokens: 50, stream: true });
      const events = sseEvents(await res.text()) as (Chunk | string)[];
      assert.ok(events.every((e) => typeof e === "string" || e.usage === undefined));
      assert.equal((events.at(-2) as Chunk).choices[0]!.finish_reason, "stop");
    });

    await t.step("a non-streamed answer is one chat.completion with usage", async () => {
      const c = byId("json-1");
      const res = await chat(sim.url, { messages: c.messages, max_tokens: 50 });
      const body = await res.json();
      assert.equal(body.object, "chat.completion");
      assert.equal(body.choices[0].message.role, "assistant");
      assert.equal(body.choices[0].message.content, c.reference_output, "JSON exactly, no padding");
      assert.equal(body.choices[0].finish_reason, "stop");
      assert.equal(body.usage.completion_tokens, simTokenizer().count(c.reference_output));
      assert.equal(body.usage.prompt_tokens, c.input_tokens);
      assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
    });

    await t.step("max_tokens cuts the answer with finish_reason length", async () => {
      const c = byId("prose-2");
      const body = await (await chat(sim.url, { messages: c.messages, max_completion_tokens: 5 })).json();
      assert.equal(body.choices[0].finish_reason, "length");
      assert.equal(body.usage.completion_tokens, 5);
      assert.equal(simTokenizer().count(body.choices[0].message.content), 5);
    });

    await t.step("tool rounds: tool_calls deltas, then the next call, then the final answer", async () => {
      const c = byId("tool-1");
      const messages: Record<string, unknown>[] = [...c.messages];
      const calls: { id: string; name: string; args: string }[] = [];
      for (const round of [0, 1]) {
        const res = await chat(sim.url, {
          messages,
          max_tokens: 100,
          stream: true,
          stream_options: { include_usage: true },
        });
        const chunks = sseEvents(await res.text()).slice(0, -1) as Chunk[];
        const deltas = chunks.flatMap((ch) =>
          (ch.choices[0]?.delta.tool_calls ?? []) as { index: number; id?: string; function: Record<string, string> }[]
        );
        assert.equal(deltas[0]!.index, 0);
        assert.ok(deltas[0]!.id);
        const call = {
          id: deltas[0]!.id!,
          name: deltas[0]!.function.name!,
          args: deltas.map((d) => d.function.arguments ?? "").join(""),
        };
        calls.push(call);
        assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, "tool_calls");
        const usage = chunks.at(-1)!.usage as {
          prompt_tokens: number;
          prompt_tokens_details: { cached_tokens: number };
        };
        if (round === 1) {
          assert.ok(usage.prompt_tokens > c.input_tokens, "the tool round's messages count as prompt");
          assert.ok(usage.prompt_tokens_details.cached_tokens >= c.input_tokens, "the earlier prompt is cached");
        }
        messages.push({
          role: "assistant",
          content: null,
          tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.args } }],
        });
        messages.push({ role: "tool", tool_call_id: call.id, content: '{"ok":true}' });
      }
      assert.deepEqual(calls.map((x) => [x.name, JSON.parse(x.args)]), [["get_order", { order_id: 42 }], ["refund", {
        order_id: 42,
      }]]);
      const final = await (await chat(sim.url, { messages, max_tokens: 100 })).json();
      assert.equal(final.choices[0].finish_reason, "stop");
      assert.ok(final.choices[0].message.content.startsWith(c.reference_output));
    });

    await t.step("a prompt the workload does not hold gets min(max_tokens, 64) filler tokens", async () => {
      const messages = unknownPrompt("What is the capital of Atlantis?");
      const long = await (await chat(sim.url, { messages, max_tokens: 500 })).json();
      assert.equal(long.usage.completion_tokens, 64);
      assert.equal(long.usage.prompt_tokens, simTokenizer().count(messages[0]!.content));
      assert.equal(long.choices[0].finish_reason, "stop");
      const short = await (await chat(sim.url, { messages, max_tokens: 10 })).json();
      assert.equal(short.usage.completion_tokens, 10);
    });

    await t.step("bad requests get OpenAI-style 400s", async () => {
      const empty = await chat(sim.url, { messages: [] });
      assert.equal(empty.status, 400);
      const e = (await empty.json()).error;
      assert.equal(e.type, "invalid_request_error");
      assert.equal(e.param, "messages");
      const notJson = await fetch(`${sim.url}/v1/chat/completions`, { method: "POST", body: "{oops" });
      assert.equal(notJson.status, 400);
      await notJson.body?.cancel();
      const huge = await chat(sim.url, { messages: unknownPrompt(), max_tokens: 10_000_000 });
      assert.equal(huge.status, 400);
      assert.equal((await huge.json()).error.code, "context_length_exceeded");
    });
  } finally {
    await sim.stop();
  }
});
