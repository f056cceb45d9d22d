import assert from "node:assert/strict";
import { SimProfile } from "../../schema/mod.ts";
import { SimBatches } from "../../sim/batch.ts";
import type { SimDialect } from "../../sim/dialects/dialect.ts";
import { startSim } from "../../sim/mod.ts";
import { anthropicBatchProvider, readAnthropicLine } from "../../runner/batch/anthropic_batch.ts";
import { openaiBatchProvider, readOpenAILine } from "../../runner/batch/openai_batch.ts";

const body = (content: string) => ({
  model: "sim-llm",
  messages: [{ role: "user", content }],
  max_tokens: 8,
  stream: false,
});
const line = (id: string, b: unknown = body(`hello ${id}`)) =>
  JSON.stringify({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: b });

async function upload(url: string, jsonl: string): Promise<string> {
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new Blob([jsonl]), "in.jsonl");
  const res = await fetch(`${url}/v1/files`, { method: "POST", body: form });
  assert.equal(res.status, 200);
  const f = await res.json();
  assert.equal(f.object, "file");
  assert.equal(f.purpose, "batch");
  return f.id;
}

async function create(url: string, fileId: string) {
  const res = await fetch(`${url}/v1/batches`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" }),
  });
  assert.equal(res.status, 200);
  return await res.json();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("sim OpenAI batch: validating → in_progress → finalizing → completed, request_counts, output file lines", async () => {
  const sim = await startSim({
    // finalizing lasts the last tenth of the turnaround: 200 ms, ten polls, so a loaded machine's late poll cannot
    // step over it (at 400 ms its 40 ms did, once).
    profile: SimProfile.parse({ name: "b", engine: { decode_step_ms_base: 1 }, batch: { turnaround_ms: 2000 } }),
    quiet: true,
  });
  try {
    const fileId = await upload(sim.url, [line("a"), line("b"), line("c")].join("\n") + "\n");
    const created = await create(sim.url, fileId);
    assert.equal(created.object, "batch");
    assert.equal(created.status, "validating");
    assert.equal(created.request_counts.total, 3);
    const seen: string[] = [];
    let b = created;
    for (let i = 0; i < 400 && b.status !== "completed"; i++) {
      await sleep(20);
      b = await (await fetch(`${sim.url}/v1/batches/${created.id}`)).json();
      if (seen.at(-1) !== b.status) seen.push(b.status);
    }
    assert.deepEqual(seen.filter((s) => s !== "validating"), ["in_progress", "finalizing", "completed"]);
    assert.deepEqual(b.request_counts, { total: 3, completed: 3, failed: 0 });
    assert.equal(b.error_file_id, null);
    const text = await (await fetch(`${sim.url}/v1/files/${b.output_file_id}/content`)).text();
    const lines = text.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.custom_id), ["a", "b", "c"]);
    for (const l of lines) {
      assert.equal(l.error, null);
      assert.equal(l.response.status_code, 200);
      assert.equal(l.response.body.object, "chat.completion");
      assert.ok(l.response.body.usage.completion_tokens > 0);
      assert.equal(readOpenAILine(l).kind, "answer");
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("sim OpenAI batch: failed items go to the error file with their status; a bad input file fails the batch", async () => {
  const sim = await startSim({
    profile: SimProfile.parse({ name: "b", faults: { error_rate: 1 }, batch: { turnaround_ms: 0 } }),
    quiet: true,
  });
  try {
    const created = await create(sim.url, await upload(sim.url, line("x") + "\n" + line("y") + "\n"));
    let b = created;
    while (b.status !== "completed") {
      await sleep(10);
      b = await (await fetch(`${sim.url}/v1/batches/${created.id}`)).json();
    }
    assert.equal(b.output_file_id, null);
    assert.deepEqual(b.request_counts, { total: 2, completed: 0, failed: 2 });
    const errs = (await (await fetch(`${sim.url}/v1/files/${b.error_file_id}/content`)).text()).trim().split("\n");
    for (const l of errs.map((t) => JSON.parse(t))) {
      assert.equal(l.response.status_code, 500);
      assert.deepEqual(readOpenAILine(l), { kind: "error_status", status: 500, body: JSON.stringify(l.response.body) });
    }
    const bad = await create(sim.url, await upload(sim.url, line("d") + "\n" + line("d") + "\nnot json\n"));
    assert.equal(bad.status, "failed");
    assert.deepEqual(bad.errors.data.map((e: { code: string }) => e.code), [
      "duplicate_custom_id",
      "invalid_json_line",
    ]);
    assert.equal((await fetch(`${sim.url}/v1/batches/nope`)).status, 404);
  } finally {
    await sim.stop();
  }
});

Deno.test("readOpenAILine: expired and cancelled items, error codes, malformed lines", () => {
  const err = (code: string) => readOpenAILine({ custom_id: "a", response: null, error: { code, message: "m" } });
  assert.deepEqual(err("batch_expired"), {
    kind: "failed",
    outcome: "timeout",
    errorKind: "batch_expired",
    status: null,
  });
  assert.deepEqual(err("batch_cancelled"), {
    kind: "failed",
    outcome: "aborted",
    errorKind: "batch_cancelled",
    status: null,
  });
  assert.equal(
    (err("token_limit_exceeded") as { errorKind: string }).errorKind,
    "batch_item_error:token_limit_exceeded",
  );
  assert.equal(
    (readOpenAILine({ custom_id: "a", response: { status_code: "200" } }) as { errorKind: string }).errorKind,
    "batch_item_malformed",
  );
  assert.equal((readOpenAILine({ custom_id: "a" }) as { errorKind: string }).errorKind, "batch_item_malformed");
});

Deno.test("runner's OpenAI batch client against the simulator: submit, poll to completed, read results by custom_id", async () => {
  const sim = await startSim({ profile: SimProfile.parse({ name: "b", batch: { turnaround_ms: 50 } }), quiet: true });
  try {
    const p = openaiBatchProvider(new URL(`${sim.url}/v1/chat/completions`), { authorization: "Bearer k" });
    const signal = new AbortController().signal;
    const id = await p.submit([
      { customId: "r1_r0", body: JSON.stringify(body("one")) },
      { customId: "r2_r0", body: JSON.stringify(body("two")) },
    ], signal);
    let poll = await p.poll(id, signal);
    while (!poll.ended) {
      await sleep(10);
      poll = await p.poll(id, signal);
    }
    assert.equal(poll.status, "completed");
    const r = await p.results(poll, signal);
    assert.deepEqual([...r.items.keys()].sort(), ["r1_r0", "r2_r0"]);
    assert.ok([...r.items.values()].every((x) => x.kind === "answer"));
    assert.deepEqual(r.missing, { outcome: "invalid_response", errorKind: "batch_item_missing" });
  } finally {
    await sim.stop();
  }
});

/**
 * A minimal Anthropic side for the batch endpoints (the simulator's own Anthropic dialect lives in sim/dialects/):
 * params are read as messages; an answer is written as a Messages API message.
 */
const fakeAnthropic = {
  name: "anthropic-messages",
  parse(b: unknown) {
    const p = b as { model: string; messages: { role: "user"; content: string }[]; max_tokens: number };
    if (!Array.isArray(p.messages)) return { ok: false, param: "messages", message: "required" };
    return {
      ok: true,
      value: { model: p.model, messages: p.messages, maxTokens: p.max_tokens, stream: false, includeUsage: false },
    };
  },
  body(
    a: { id: string; model: string; text: string | null; finish: string; usage: { prompt: number; output: number } },
  ) {
    return {
      id: a.id,
      type: "message",
      role: "assistant",
      model: a.model,
      content: [{ type: "text", text: a.text ?? "" }],
      stop_reason: a.finish === "length" ? "max_tokens" : "end_turn",
      usage: { input_tokens: a.usage.prompt, output_tokens: a.usage.output },
    };
  },
} as unknown as SimDialect;

/** Serves SimBatches alone on loopback, its chat path answering `status` (200: a fixed completion). */
function serveBatches(status: number, turnaroundMs: number) {
  let url = "";
  const batches = new SimBatches({
    chat: (b) => {
      const m = (b as { model: string }).model;
      if (status !== 200) return Promise.resolve(Response.json({ error: { message: "boom" } }, { status }));
      return Promise.resolve(Response.json({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: m,
        choices: [{ index: 0, message: { role: "assistant", content: "tok0" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
      }));
    },
    anthropic: fakeAnthropic,
    turnaroundMs,
    now: () => Date.now(),
    baseUrl: () => url,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const r = batches.handle(req, new URL(req.url).pathname);
    return r ?? new Response("no", { status: 404 });
  });
  url = `http://127.0.0.1:${server.addr.port}`;
  return { url, close: () => server.shutdown() };
}

const params = (content: string) => ({ model: "claude-x", max_tokens: 8, messages: [{ role: "user", content }] });

Deno.test("sim Anthropic Message Batches: in_progress → ended, request_counts, results JSONL; errored items through the runner client", async () => {
  const s = serveBatches(200, 150);
  try {
    const res = await fetch(`${s.url}/v1/messages/batches`, {
      method: "POST",
      body: JSON.stringify({
        requests: [{ custom_id: "a", params: params("x") }, { custom_id: "b", params: params("y") }],
      }),
    });
    const created = await res.json();
    assert.equal(created.type, "message_batch");
    assert.equal(created.processing_status, "in_progress");
    assert.equal(created.results_url, null);
    assert.equal((await fetch(`${s.url}/v1/messages/batches/${created.id}/results`)).status, 400);
    let b = created;
    while (b.processing_status !== "ended") {
      await sleep(20);
      b = await (await fetch(`${s.url}/v1/messages/batches/${created.id}`)).json();
    }
    assert.deepEqual(b.request_counts, { processing: 0, succeeded: 2, errored: 0, canceled: 0, expired: 0 });
    assert.ok(b.ended_at);
    const lines = (await (await fetch(b.results_url)).text()).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.custom_id, l.result.type]), [["a", "succeeded"], ["b", "succeeded"]]);
    assert.equal(lines[0].result.message.content[0].text, "tok0");
    assert.equal(readAnthropicLine(lines[0]).kind, "answer");
    const dup = await fetch(`${s.url}/v1/messages/batches`, {
      method: "POST",
      body: JSON.stringify({
        requests: [{ custom_id: "a", params: params("x") }, { custom_id: "a", params: params("y") }],
      }),
    });
    assert.equal(dup.status, 400);
    assert.equal((await dup.json()).error.type, "invalid_request_error");
  } finally {
    await s.close();
  }
  const failing = serveBatches(500, 0);
  try {
    const p = anthropicBatchProvider(new URL(`${failing.url}/v1/messages`), { "x-api-key": "k" });
    const signal = new AbortController().signal;
    const id = await p.submit([{ customId: "q_r0", body: JSON.stringify({ ...params("z"), stream: false }) }], signal);
    let poll = await p.poll(id, signal);
    while (!poll.ended) {
      await sleep(10);
      poll = await p.poll(id, signal);
    }
    const r = await p.results(poll, signal);
    assert.deepEqual(r.items.get("q_r0"), {
      kind: "failed",
      outcome: "http_error",
      errorKind: "batch_errored:api_error",
      status: null,
    });
  } finally {
    await failing.close();
  }
});

Deno.test("readAnthropicLine: each result type, and results_url off the route's origin is refused", async () => {
  const r = (result: unknown) => readAnthropicLine({ custom_id: "a", result });
  assert.deepEqual(r({ type: "canceled" }), {
    kind: "failed",
    outcome: "aborted",
    errorKind: "batch_canceled",
    status: null,
  });
  assert.deepEqual(r({ type: "expired" }), {
    kind: "failed",
    outcome: "timeout",
    errorKind: "batch_expired",
    status: null,
  });
  const overloaded = r({
    type: "errored",
    error: { type: "error", error: { type: "overloaded_error", message: "m" } },
  });
  assert.deepEqual(overloaded, {
    kind: "failed",
    outcome: "rejected",
    errorKind: "batch_errored:overloaded_error",
    status: null,
  });
  assert.equal((r({ type: "succeeded" }) as { errorKind: string }).errorKind, "batch_item_malformed");
  assert.equal((r("nope") as { errorKind: string }).errorKind, "batch_item_malformed");
  const evil = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ id: "msgbatch_1", processing_status: "ended", results_url: "http://127.0.0.2:1/steal" }),
  );
  try {
    const p = anthropicBatchProvider(new URL(`http://127.0.0.1:${evil.addr.port}/v1/messages`), { "x-api-key": "k" });
    await assert.rejects(p.poll("msgbatch_1", new AbortController().signal), /not the route's origin/);
  } finally {
    await evil.shutdown();
  }
});
