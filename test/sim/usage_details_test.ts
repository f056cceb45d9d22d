import assert from "node:assert/strict";
import type { SimProfileInput } from "../../schema/mod.ts";
import { startSim } from "../../sim/server.ts";
import { simTokenizer } from "../../sim/tokenizer.ts";
import { chat, FAST_ENGINE, profile, sseEvents, testWorkload } from "./_fixtures.ts";

type Usage = {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
  cache_creation_input_tokens?: number;
};
type Chunk = { choices: { delta: Record<string, unknown>; finish_reason: string | null }[]; usage?: Usage };

const perfect = { accuracy: 1, refusal_rate: 1, json_validity: 1, tool_accuracy: 1 };
const byId = (id: string) => testWorkload().cases.find((c) => c.case_id === id)!;

async function withSim(input: Omit<SimProfileInput, "name">, body: (url: string) => Promise<void>): Promise<void> {
  const sim = await startSim({ profile: profile(input), workload: testWorkload(), quiet: true });
  try {
    await body(sim.url);
  } finally {
    await sim.stop();
  }
}

Deno.test("a reasoning profile decodes hidden reasoning first and reports it inside completion_tokens", async (t) => {
  // summarize reasons for 30 tokens; every other class for 0, so this is a reasoning model: all answers report.
  const behaviour = { default: perfect, classes: { summarize: { reasoning_tokens: 30 } } };
  await withSim({ engine: FAST_ENGINE, behaviour }, async (url) => {
    await t.step(
      "streamed: no chunk for the 30 hidden steps, then the 60 visible tokens; usage 90 of which 30",
      async () => {
        const c = byId("prose-1");
        const started = performance.now();
        const res = await chat(url, {
          messages: c.messages,
          max_tokens: 200,
          stream: true,
          stream_options: { include_usage: true },
        });
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = "", firstContentMs: number | null = null;
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          if (firstContentMs === null && r.value.includes('"content":"') && !r.value.includes('"role"')) {
            firstContentMs = performance.now() - started;
          }
          text += r.value;
        }
        const chunks = sseEvents(text).slice(0, -1) as Chunk[];
        const visible = chunks.slice(1, -2);
        assert.equal(visible.length, c.expected_output_tokens, "one chunk per visible token, none for reasoning");
        assert.ok(visible.every((ch) => typeof ch.choices[0]!.delta.content === "string"));
        assert.deepEqual(chunks.at(-1)!.usage, {
          prompt_tokens: c.input_tokens,
          // 30 reasoning + 60 visible = 90.
          completion_tokens: 30 + c.expected_output_tokens,
          total_tokens: c.input_tokens + 90,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 30 },
        });
        // 30 decode steps of 10 ms pass before the first visible token (a lower bound: a slow host only adds).
        assert.ok(firstContentMs !== null && firstContentMs >= 290, `first visible token at ${firstContentMs} ms`);
      },
    );
    await t.step("another class of a reasoning model reports 0 reasoning tokens", async () => {
      const c = byId("json-1");
      const body = await (await chat(url, { messages: c.messages, max_tokens: 50 })).json();
      assert.equal(body.choices[0].message.content, c.reference_output);
      assert.deepEqual(body.usage.completion_tokens_details, { reasoning_tokens: 0 });
      assert.equal(body.usage.completion_tokens, simTokenizer().count(c.reference_output));
    });
    await t.step(
      "max_tokens counts reasoning: a cap of 20 ends inside the reasoning with nothing visible",
      async () => {
        const body = await (await chat(url, { messages: byId("prose-2").messages, max_tokens: 20 })).json();
        assert.equal(body.choices[0].finish_reason, "length");
        assert.equal(body.choices[0].message.content, "");
        assert.equal(body.usage.completion_tokens, 20);
        assert.deepEqual(body.usage.completion_tokens_details, { reasoning_tokens: 20 });
      },
    );
    await t.step("a cap of 40 leaves 10 visible tokens after 30 of reasoning", async () => {
      const body = await (await chat(url, { messages: byId("prose-2").messages, max_tokens: 40 })).json();
      assert.equal(body.choices[0].finish_reason, "length");
      assert.equal(simTokenizer().count(body.choices[0].message.content), 10);
      assert.deepEqual([body.usage.completion_tokens, body.usage.completion_tokens_details.reasoning_tokens], [40, 30]);
    });
  });
});

Deno.test("a profile without reasoning or cache-write reporting sends the usage it always did", async () => {
  await withSim({ engine: FAST_ENGINE, behaviour: { default: perfect } }, async (url) => {
    const body = await (await chat(url, { messages: byId("json-1").messages, max_tokens: 50 })).json();
    assert.deepEqual(Object.keys(body.usage), [
      "prompt_tokens",
      "completion_tokens",
      "total_tokens",
      "prompt_tokens_details",
    ]);
    assert.deepEqual(Object.keys(body.usage.prompt_tokens_details), ["cached_tokens"]);
  });
});

/** The usage of both model rounds of the tool case (streamed). */
async function toolRounds(url: string): Promise<Usage[]> {
  const c = byId("tool-1");
  const messages: Record<string, unknown>[] = [...c.messages];
  const out: Usage[] = [];
  for (const round of [0, 1]) {
    const res = await chat(url, { messages, max_tokens: 100, stream: true, stream_options: { include_usage: true } });
    const chunks = sseEvents(await res.text()).slice(0, -1) as Chunk[];
    out.push(chunks.at(-1)!.usage!);
    const deltas = chunks.flatMap((ch) =>
      (ch.choices[0]?.delta.tool_calls ?? []) as { id?: string; function: Record<string, string> }[]
    );
    const id = deltas[0]!.id!;
    const call = { name: deltas[0]!.function.name!, arguments: deltas.map((d) => d.function.arguments ?? "").join("") };
    messages.push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: call }] });
    messages.push({ role: "tool", tool_call_id: id, content: `{"round":${round}}` });
  }
  return out;
}

Deno.test("cache writes: each prefill's uncached prompt tokens, under the field the profile names", async (t) => {
  for (const field of ["cache_creation_input_tokens", "cache_write_tokens"] as const) {
    await t.step(field, async () => {
      await withSim(
        { engine: { ...FAST_ENGINE, cache_write_field: field }, behaviour: { default: perfect } },
        async (url) => {
          const [r0, r1] = await toolRounds(url);
          const written = (u: Usage) =>
            field === "cache_write_tokens" ? u.prompt_tokens_details.cache_write_tokens : u.cache_creation_input_tokens;
          // Round 0: nothing cached, the whole prompt is written. Round 1: the cached prefix is read, the rest written.
          assert.equal(r0!.prompt_tokens_details.cached_tokens, 0);
          assert.equal(written(r0!), r0!.prompt_tokens);
          assert.ok(r1!.prompt_tokens_details.cached_tokens >= byId("tool-1").input_tokens);
          assert.equal(written(r1!), r1!.prompt_tokens - r1!.prompt_tokens_details.cached_tokens);
          assert.ok(written(r1!)! > 0);
          // The other name is not sent.
          assert.equal(
            field === "cache_write_tokens"
              ? r0!.cache_creation_input_tokens
              : r0!.prompt_tokens_details.cache_write_tokens,
            undefined,
          );
        },
      );
    });
  }
  await t.step("without prefix caching nothing is written: 0 reported", async () => {
    const engine = { ...FAST_ENGINE, prefix_caching: false, cache_write_field: "cache_write_tokens" as const };
    await withSim({ engine, behaviour: { default: perfect } }, async (url) => {
      const [r0, r1] = await toolRounds(url);
      assert.deepEqual([r0!.prompt_tokens_details, r1!.prompt_tokens_details], [
        { cached_tokens: 0, cache_write_tokens: 0 },
        { cached_tokens: 0, cache_write_tokens: 0 },
      ]);
    });
  });
});
