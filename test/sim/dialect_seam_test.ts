/**
 * The seam between the simulator and its dialects: a minimal dialect written here, in a made-up wire format, is
 * served by the same handler as OpenAI's — its parse, frames, body, errors and limit headers are the ones used, and
 * for a fixed seed it gets the same answers, faults and draws.
 */
import assert from "node:assert/strict";
import type { SimMessage } from "../../sim/chat_request.ts";
import type { SimDialect, SimError, SimErrorClass, SimUsage } from "../../sim/dialects/dialect.ts";
import { SIM_DIALECTS } from "../../sim/dialects/mod.ts";
import { startSim } from "../../sim/mod.ts";
import { chat, FAST_ENGINE, profile, testWorkload } from "./_fixtures.ts";

const STATUS: Record<SimErrorClass, number> = {
  invalid_request: 422,
  not_found: 404,
  server_error: 500,
  unavailable: 503,
  overloaded: 529,
  rate_limited: 429,
  client_closed: 499,
};
const enc = new TextEncoder();
const usageText = (u: SimUsage) => `${u.prompt}/${u.output}/${u.cached}`;

/**
 * `POST /fake/generate`: `{turns: [[role, text], …], limit?, stream?, tier?}`; errors are `text/plain`
 * `class|code|param|message`; a stream is lines (`S`, `T<json piece>` as bytes, `C…`, `A…`, then `E finish usage`
 * as bytes).
 */
const FAKE: SimDialect = {
  name: "fake",
  match: (method, url) => method === "POST" && url.pathname === "/fake/generate" ? { model: "fake-model" } : null,
  parse(body, match) {
    const b = body as { turns?: unknown; limit?: unknown; stream?: unknown; tier?: unknown } | null;
    if (!b || !Array.isArray(b.turns) || b.turns.length === 0) {
      return { ok: false, param: "turns", message: "turns: a non-empty list of [role, text]" };
    }
    const messages: SimMessage[] = b.turns.map(([role, content]: [SimMessage["role"], string]) => ({
      role,
      content,
      toolCallText: "",
    }));
    return {
      ok: true,
      value: {
        model: match.model!,
        messages,
        maxTokens: typeof b.limit === "number" ? b.limit : null,
        stream: b.stream === true,
        includeUsage: true,
        serviceTier: typeof b.tier === "string" ? b.tier : null,
      },
    };
  },
  error: (e: SimError) =>
    new Response(`${e.class}|${e.code}|${e.param ?? ""}|${e.message}`, {
      status: STATUS[e.class],
      headers: { ...e.headers, "content-type": "text/plain" },
    }),
  limitHeaders: (q): Record<string, string> =>
    q.remainingRequests === null ? {} : { "fake-requests-left": String(q.remainingRequests) },
  streamContentType: "application/x-fake",
  stream: (id, model, _created, tier) => ({
    start: () => `S ${id} ${model} ${tier}\n`,
    content: (piece) => enc.encode(`T${JSON.stringify(piece)}\n`),
    toolCallStart: (callId, name) => `C${callId} ${name}\n`,
    toolCallArguments: (piece) => `A${JSON.stringify(piece)}\n`,
    end: (finish, u) => enc.encode(`E ${finish} ${usageText(u)}\n`),
  }),
  body: (a) => ({
    fake: true,
    text: a.text,
    tool: a.toolCall,
    finish: a.finish,
    usage: usageText(a.usage),
    tier: a.serviceTier,
  }),
};

const fake = (url: string, body: unknown) =>
  fetch(`${url}/fake/generate`, { method: "POST", body: JSON.stringify(body) });
const turns = (messages: { role: string; content: string }[]) => messages.map((m) => [m.role, m.content]);

Deno.test("the handler serves a dialect it does not know: its parse, frames, body, errors and limit headers", async (t) => {
  const w = testWorkload();
  const byId = (id: string) => w.cases.find((c) => c.case_id === id)!;
  const perfect = { default: { accuracy: 1, refusal_rate: 1, json_validity: 1, tool_accuracy: 1 } };
  const sim = await startSim({
    profile: profile({
      engine: FAST_ENGINE,
      behaviour: perfect,
      rate_limits: { requests_per_minute: 1, window_s: 3600 },
    }),
    workload: w,
    quiet: true,
    dialects: [...SIM_DIALECTS, FAKE],
  });
  try {
    await t.step("a whole answer is the dialect's body, with its limit headers", async () => {
      const c = byId("prose-1");
      const res = await fake(sim.url, { turns: turns(c.messages), limit: 200, tier: "gold" });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("fake-requests-left"), "59");
      assert.equal(res.headers.get("x-ratelimit-limit-requests"), null, "OpenAI's headers are OpenAI's");
      const body = await res.json();
      assert.equal(body.fake, true);
      assert.ok(body.text.startsWith(c.reference_output));
      assert.equal(body.finish, "stop");
      assert.equal(body.usage, `${c.input_tokens}/${c.expected_output_tokens}/0`);
      assert.equal(body.tier, "gold", "the tier the request pins is served");
    });

    await t.step("a stream: the dialect's frames, bytes and strings alike, in order", async () => {
      const c = byId("prose-1");
      const res = await fake(sim.url, { turns: turns(c.messages), limit: 200, stream: true });
      assert.equal(res.headers.get("content-type"), "application/x-fake");
      const lines = (await res.text()).split("\n").filter(Boolean);
      assert.match(lines[0]!, /^S chatcmpl-sim-\d+ fake-model null$/);
      const tokens = lines.slice(1, -1);
      assert.equal(tokens.length, c.expected_output_tokens);
      const text = tokens.map((l) => JSON.parse(l.slice(1))).join("");
      assert.ok(text.startsWith(c.reference_output), text);
      assert.equal(lines.at(-1), `E stop ${c.input_tokens}/${c.expected_output_tokens}/0`);
    });

    await t.step("a tool call streams through toolCallStart and toolCallArguments", async () => {
      const res = await fake(sim.url, { turns: turns(byId("tool-1").messages), limit: 200, stream: true });
      const lines = (await res.text()).split("\n").filter(Boolean);
      assert.match(lines[1]!, /^Ccall_sim_\d+ get_order$/);
      const args = lines.filter((l) => l.startsWith("A")).map((l) => JSON.parse(l.slice(1))).join("");
      assert.deepEqual(JSON.parse(args), { order_id: 42 });
      assert.match(lines.at(-1)!, /^E tool_calls /);
    });

    await t.step("a bad body: the dialect's error, naming the field its parse named", async () => {
      const res = await fake(sim.url, { turns: [] });
      assert.equal(res.status, 422);
      assert.equal(res.headers.get("fake-requests-left"), "57", "every answer carries the quota's state");
      assert.equal(await res.text(), "invalid_request|invalid_value|turns|turns: a non-empty list of [role, text]");
    });

    await t.step("not JSON: the dialect's error", async () => {
      const res = await fetch(`${sim.url}/fake/generate`, { method: "POST", body: "{" });
      assert.equal(res.status, 422);
      assert.match(await res.text(), /^invalid_request\|invalid_json\|\|Request body is not valid JSON/);
    });

    await t.step("OpenAI's path still answers in OpenAI's format beside it", async () => {
      const res = await chat(sim.url, { messages: byId("prose-1").messages, max_tokens: 5 });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("fake-requests-left"), null);
      assert.equal(res.headers.get("x-ratelimit-remaining-requests"), "56");
      assert.equal((await res.json()).object, "chat.completion");
    });
  } finally {
    await sim.stop();
  }
});

Deno.test("the handler's faults and quota answer in the dialect's errors", async (t) => {
  await t.step("error_rate: 500 server_error", async () => {
    const sim = await startSim({
      profile: profile({ engine: FAST_ENGINE, faults: { error_rate: 1 } }),
      quiet: true,
      dialects: [FAKE],
    });
    try {
      const res = await fake(sim.url, { turns: [["user", "Hi"]] });
      assert.equal(res.status, 500);
      assert.match(await res.text(), /^server_error\|internal_error\|\|/);
    } finally {
      await sim.stop();
    }
  });

  await t.step(
    "quota: 429 rate_limited with the short bucket's headers and Retry-After; shed: 529 overloaded",
    async () => {
      const sim = await startSim({
        profile: profile({
          engine: { ...FAST_ENGINE, max_running_seqs: 1 },
          queue: { max_len: 0 },
          rate_limits: { requests_per_minute: 2 },
        }),
        quiet: true,
        dialects: [FAKE],
      });
      try {
        const running = fake(sim.url, { turns: [["user", "Hi"]], limit: 30 });
        await new Promise((r) => setTimeout(r, 30));
        const shed = await fake(sim.url, { turns: [["user", "Hi"]], limit: 5 });
        assert.equal(shed.status, 529);
        assert.equal(shed.headers.get("retry-after"), "1");
        assert.equal(shed.headers.get("fake-requests-left"), "0");
        assert.match(await shed.text(), /^overloaded\|overloaded\|\|The server is overloaded/);
        const limited = await fake(sim.url, { turns: [["user", "Hi"]], limit: 5 });
        assert.equal(limited.status, 429);
        assert.equal(limited.headers.get("fake-requests-left"), "0");
        assert.ok(Number(limited.headers.get("retry-after")) >= 1);
        assert.match(await limited.text(), /^rate_limited\|rate_limit_exceeded\|\|Rate limit reached for requests/);
        assert.equal((await running).status, 200);
      } finally {
        await sim.stop();
      }
    },
  );
});

Deno.test("for a fixed seed a dialect gets the same draws as OpenAI's: the same answers, faults and verdicts", async () => {
  const w = testWorkload();
  // Half of everything wrong and a third of the requests failed: every draw shows in the outcome.
  const sim = await startSim({
    profile: profile({
      engine: FAST_ENGINE,
      faults: { error_rate: 0.3 },
      behaviour: { default: { accuracy: 0.5, json_validity: 0.5, refusal_rate: 0.5, tool_accuracy: 0.5 } },
    }),
    workload: w,
    quiet: true,
    seed: 11,
    dialects: [...SIM_DIALECTS, FAKE],
  });
  try {
    const outcomes = async (viaFake: boolean) => {
      sim.reset();
      const out: string[] = [];
      for (let i = 0; i < 24; i++) {
        const c = w.cases[i % w.cases.length]!;
        const res = viaFake
          ? await fake(sim.url, { turns: turns(c.messages), limit: 20 })
          : await chat(sim.url, { messages: c.messages, max_tokens: 20 });
        const body = res.ok ? await res.json() : (await res.body?.cancel(), null);
        const msg = body?.choices?.[0]?.message;
        const text = viaFake
          ? body?.text ?? body?.tool?.arguments
          : msg?.content ?? msg?.tool_calls?.[0].function.arguments;
        out.push(`${res.status} ${res.headers.get("x-sim-verdict")} ${text}`);
      }
      return out;
    };
    const openai = await outcomes(false);
    assert.ok(openai.some((o) => o.startsWith("500")) && openai.some((o) => o.startsWith("200")), openai.join("\n"));
    assert.ok(new Set(openai.filter((o) => o.startsWith("200")).map((o) => o.split(" ")[1])).size > 2);
    assert.deepEqual(await outcomes(true), openai);
  } finally {
    await sim.stop();
  }
});

Deno.test("SIM_DIALECTS: every dialect has its own name", () => {
  const names = SIM_DIALECTS.map((d) => d.name);
  assert.deepEqual([...new Set(names)], names);
  assert.ok(names.includes("openai_chat") && names.includes("azure_openai"));
});
