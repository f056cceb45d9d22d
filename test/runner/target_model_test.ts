import assert from "node:assert/strict";
import { join } from "node:path";
import { firstModelId, modelsUrl, targetModel } from "../../runner/target_model.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startFronted } from "../support/fake_engine.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** A server whose `GET /v1/models` answers `models` (status, body); chat calls are answered by a fault server. */
async function modelServer(status: number, body: string) {
  const seen: { path: string; auth: string | null }[] = [];
  const server = await startFronted((req, path) => {
    seen.push({ path, auth: req.headers.get("authorization") });
    return req.method === "GET" && path === "/v1/models" ? new Response(body, { status }) : null;
  });
  return { ...server, seen };
}

Deno.test("modelsUrl() puts /models beside /chat/completions and keeps the query", () => {
  assert.equal(
    modelsUrl(new URL("http://h:1/openai/v1/chat/completions?api-version=2")).href,
    "http://h:1/openai/v1/models?api-version=2",
  );
});

Deno.test("firstModelId() takes the first id of an OpenAI list and says why there is none", () => {
  assert.deepEqual(firstModelId({ object: "list", data: [{ id: "m1" }, { id: "m2" }] }), { id: "m1" });
  assert.deepEqual(firstModelId({ models: [] }), { why: "not an OpenAI model list (no `data` array)" });
  assert.deepEqual(firstModelId({ data: [{ name: "m" }] }), { why: "its first entry has no string `id`" });
  assert.match((firstModelId({ data: [{ id: "" }] }) as { why: string }).why, /not a model name/);
  assert.match((firstModelId({ data: [{ id: "a\nb" }] }) as { why: string }).why, /not a model name/);
});

Deno.test("targetModel() sends the route's key only, and keeps unstated with the reason when the list fails", async () => {
  const ok = await modelServer(200, JSON.stringify({ data: [{ id: "tiny-llama.gguf" }] }));
  const bad = await modelServer(404, "no");
  try {
    const chat = new URL(`${ok.url}/v1/chat/completions`);
    const found = await targetModel(chat, { authorization: "Bearer k", "content-type": "application/json" });
    assert.equal(found.model, "tiny-llama.gguf");
    assert.match(found.note, /first id GET http:\/\/127\.0\.0\.1:\d+\/v1\/models listed/);
    assert.deepEqual(ok.seen, [{ path: "/v1/models", auth: "Bearer k" }]);
    const none = await targetModel(new URL(`${bad.url}/v1/chat/completions`), {});
    assert.equal(none.model, null);
    assert.match(none.note, /gave none \(HTTP 404\): sent "unstated"/);
  } finally {
    await ok.close();
    await bad.close();
  }
});

Deno.test("a run without a conditions file names the target's first listed model in its requests and run.json", async () => {
  const srv = await modelServer(200, JSON.stringify({ object: "list", data: [{ id: "tiny-llama.gguf" }] }));
  const dir = Deno.makeTempDirSync();
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, 10, 0.2),
      target: srv.url,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
      serverTimeline: false,
      modelFromTarget: true,
      timeoutsFile: writeJson(dir, "t.json", { attempt_ms: 5000 }),
    });
    assert.equal(manifest.targets[0]!.model, "tiny-llama.gguf");
    assert.match(manifest.targets[0]!.model_note!, /no conditions file stated the model/);
    assert.equal(manifest.conditions.model, "unstated", "the conditions stay as stated: not stated");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    assert.deepEqual([...new Set(attempts.map((a) => a.model))], ["tiny-llama.gguf"]);
    const bodies = srv.chat.requests.map((r) => JSON.parse(r.body).model);
    assert.deepEqual(bodies, ["tiny-llama.gguf", "tiny-llama.gguf"], "2 chat calls, each naming the listed model");
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
