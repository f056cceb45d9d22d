/**
 * The whole path with the real recorder: an app's tasks with the `openai` client (its fetch recorded) against the
 * simulator with faults, retrieval and tool steps, written by the recorder to its run folder and exported by the
 * OpenTelemetry exporter to a file; the file imported back gives the rows the recorder wrote (every column but run_id,
 * times to the nanosecond), and the recorded attempts are the calls the simulator served.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import OpenAI from "openai";
import { recorder } from "../../recorder/mod.ts";
import { recordingFetch } from "../../recorder/fetch.ts";
import { otlpExporter } from "../../recorder/otlp.ts";
import { readOtlp } from "../../importers/sources/otlp.ts";
import { sourceText } from "../../importers/sources/_source_text.ts";
import { startSim } from "../../sim/server.ts";
import { FAST_ENGINE, profile } from "../sim/_fixtures.ts";
import { readManifest, readTable, tempOut } from "./_fixture.ts";
import { wallNow } from "./_fake_task.ts";

const INSTANTS = /^(scheduled|first_sent|first_token|completed|sent|headers|last_token|started|ended)_ms$/;
/** A row as compared: run_id dropped, instants to the nanosecond (OTLP's unit). */
const comparable = (row: object) =>
  Object.fromEntries(
    Object.entries(row).filter(([k]) => k !== "run_id").map((
      [k, v],
    ) => [k, INSTANTS.test(k) && typeof v === "number" ? Math.round(v * 1e6) / 1e6 : v]),
  );

Deno.test("the real recorder → OTLP file → import gives back its rows; its attempts are the calls the simulator served", async () => {
  const sim = await startSim({
    profile: profile({
      engine: FAST_ENGINE,
      faults: { outages: [{ start_ms: 0, end_ms: 1000, mode: "503" }] },
      rate_limits: { requests_per_minute: 120, window_s: 0.5 },
    }),
    quiet: true,
  });
  const t = tempOut();
  const file = join(t.dir, "traces.jsonl");
  const exporter = otlpExporter({ file, service_name: "chat-app" });
  const errors: unknown[] = [];
  const rec = recorder({
    out: t.out,
    run_id: "prod-otlp",
    app: { name: "chat-app", version: "1.0.0" },
    exporters: [exporter],
    onError: (e) => errors.push(e),
  });
  try {
    const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "k", maxRetries: 6, fetch: recordingFetch(rec) });
    sim.reset();
    const firstContent = new Map<string, number>();
    const ask = async (i: number, stream: boolean) => {
      const task = rec.begin({ class: i % 2 ? "agent" : "chat", case_id: `case-${i}` });
      await task.run(async () => {
        task.received();
        await task.span("retrieval", () => new Promise((r) => setTimeout(r, 5)));
        const messages = [{ role: "user" as const, content: `Question ${i}: the capital of Norway?` }];
        let text = "";
        if (stream) {
          const s = await client.chat.completions.create({
            model: "sim-llm",
            messages,
            max_tokens: 8,
            stream: true,
            stream_options: { include_usage: true },
          });
          for await (const chunk of s) {
            const c = chunk.choices[0]?.delta?.content;
            if (c && !firstContent.has(task.request_id)) firstContent.set(task.request_id, wallNow());
            text += c ?? "";
          }
        } else {
          const r = await client.chat.completions.create({ model: "sim-llm", messages, max_tokens: 8 });
          text = r.choices[0]?.message.content ?? "";
          await task.span("lookup", () => "done", { round: 1 });
        }
        task.complete({ output: text, valid: text.length > 0, quality_ok: true });
        task.responded();
        task.rendered();
      });
    };
    await ask(0, false); // in the outage: 503, then retried past it
    await Promise.all([1, 2, 3, 4].map((i) => ask(i, true))); // the quota: 429 + Retry-After, retried
    await rec.close();
    assert.deepEqual(errors, []);
    assert.deepEqual(exporter.stats().dropped, { queue_full: 0, failed: 0 });

    const written = {
      requests: await readTable(t.out, "requests"),
      attempts: await readTable(t.out, "attempts"),
      tools: await readTable(t.out, "tools"),
      phases: await readTable(t.out, "phases"),
    };
    const run = readOtlp([sourceText(file, await Deno.readTextFile(file))]);
    const rows = run.rows!;
    const byId = <T extends { request_id: string }>(xs: readonly T[]) =>
      [...xs].sort((a, b) => a.request_id.localeCompare(b.request_id));
    assert.equal(rows.requests.length, 5);
    assert.deepEqual(byId(rows.requests).map(comparable), byId(written.requests).map(comparable));
    assert.deepEqual(byId(rows.attempts).map(comparable), byId(written.attempts).map(comparable));
    assert.deepEqual(byId(rows.tools).map(comparable), byId(written.tools).map(comparable));
    assert.deepEqual(byId(rows.phases).map(comparable), byId(written.phases).map(comparable));
    assert.equal(rows.epoch_iso, readManifest(t.out).epoch_iso);

    // The attempts are the calls the simulator served, status by status.
    const health = await (await fetch(`${sim.url}/health`)).json();
    const statuses = written.attempts.map((a) => a.http_status);
    assert.equal(written.attempts.length, health.errors + health.rate_limited + health.admitted);
    assert.deepEqual(
      [503, 429, 200].map((s) => statuses.filter((x) => x === s).length),
      [health.errors, health.rate_limited, health.admitted],
    );
    assert.ok(health.errors >= 1 && health.rate_limited >= 1);
    // Retries are correlated: every failed attempt is followed by another of its task's round 0, with its reason.
    for (const r of written.requests) {
      const mine = written.attempts.filter((a) => a.request_id === r.request_id);
      assert.equal(r.attempts, mine.length);
      assert.deepEqual(mine.map((a) => a.attempt), mine.map((_, i) => i + 1));
      for (const a of mine.slice(0, -1)) assert.equal(a.retry_reason, `http_${a.http_status}`);
      assert.equal(mine.at(-1)!.http_status, 200);
      // The recorded first token is no later than the app's first content chunk (both on the wall clock).
      const app = firstContent.get(r.request_id);
      if (app !== undefined) {
        const epoch = Date.parse(readManifest(t.out).epoch_iso);
        assert.ok(mine.at(-1)!.first_token_ms! + epoch <= app + 1e-3);
      }
    }
  } finally {
    await sim.stop();
    t.remove();
  }
});
