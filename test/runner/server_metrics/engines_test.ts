import assert from "node:assert/strict";
import { parsePrometheusText } from "../../../lib/prometheus_text.ts";
import {
  COUNT_COLUMNS,
  LLAMACPP,
  llamacppSlotTokens,
  VLLM,
  vllmKvCapacity,
  zeroCounts,
} from "../../../runner/server_metrics/engines.ts";

const FIXTURES = new URL("../../fixtures/server_metrics/", import.meta.url);
const text = (name: string) => Deno.readTextFileSync(new URL(name, FIXTURES));
const json = (name: string) => JSON.parse(text(name));

Deno.test("llama.cpp: the recorded /metrics and /slots give queue, running and KV tokens", () => {
  const metrics = parsePrometheusText(text("llamacpp_metrics_busy.txt"));
  const slots = json("llamacpp_slots_busy.json");
  const exposed = new Set(LLAMACPP.exposed({ metrics, slots }));
  assert.deepEqual([...exposed], ["queue_len", "running", "kv_tokens"]);
  const row = LLAMACPP.row({ metrics, slots }, exposed);
  assert.ok("counts" in row);
  // Slots (n_prompt_tokens + n_decoded): 66 + 31, 41 + 6, 105 + 70, 106 + 71 = 97 + 47 + 175 + 177 = 496.
  assert.deepEqual(row.counts, { ...zeroCounts(), queue_len: 4, running: 4, kv_tokens: 496 });
});

Deno.test("llama.cpp: idle slots hold no KV of a running sequence; no /slots means KV is not exposed", () => {
  assert.equal(llamacppSlotTokens(json("llamacpp_slots_idle.json")), 0);
  const metrics = parsePrometheusText(text("llamacpp_metrics_busy.txt"));
  const exposed = new Set(LLAMACPP.exposed({ metrics, slots: undefined }));
  assert.deepEqual([...exposed], ["queue_len", "running"]);
  const row = LLAMACPP.row({ metrics }, exposed);
  assert.ok("counts" in row);
  assert.equal(row.counts.kv_tokens, 0, "not exposed: 0, listed as such in run.json");
});

Deno.test("llama.cpp: a reading without a needed value gives no row, never a made-up one", () => {
  const full = text("llamacpp_metrics_busy.txt");
  const exposed = new Set(["queue_len", "running", "kv_tokens"] as const);
  const slots = json("llamacpp_slots_busy.json");
  const without = (name: string) => full.split("\n").filter((l) => !l.startsWith(name)).join("\n");
  assert.deepEqual(
    LLAMACPP.row({ metrics: parsePrometheusText(without("llamacpp:requests_deferred")), slots }, exposed),
    {
      why: "no llamacpp:requests_deferred",
    },
  );
  assert.deepEqual(
    LLAMACPP.row({
      metrics: parsePrometheusText(full.replace("requests_processing 4", "requests_processing -1")),
      slots,
    }, exposed),
    { why: "no llamacpp:requests_processing" },
  );
  // KV exposed at detection but /slots failed this time: no row.
  assert.deepEqual(LLAMACPP.row({ metrics: parsePrometheusText(full), slots: undefined }, exposed), {
    why: "/slots gave no slots",
  });
  assert.equal(llamacppSlotTokens([{ id: 0, is_processing: true, n_prompt_tokens: "many" }]), null);
});

Deno.test("vLLM: the documented names give queue, running, KV tokens and finished requests", () => {
  const metrics = parsePrometheusText(text("vllm_metrics.txt"));
  assert.equal(metrics.dropped, 0);
  // 2048 blocks × 16 tokens = 32,768 tokens of KV cache.
  assert.equal(vllmKvCapacity(metrics), 32_768);
  // The reading before: 10 fewer finished requests (318 + 131 + 1 = 450 now, 440 then).
  const previous = parsePrometheusText(text("vllm_metrics.txt").replace("} 318.0", "} 308.0"));
  const exposed = new Set(VLLM.exposed({ metrics: previous }));
  assert.deepEqual([...exposed], ["queue_len", "running", "kv_tokens", "finished"]);
  const row = VLLM.row({ metrics, previous }, exposed);
  assert.ok("counts" in row);
  // KV: round(0.425 × 32,768) = round(13,926.4) = 13,926; finished: 450 − 440 = 10.
  assert.deepEqual(row.counts, { ...zeroCounts(), queue_len: 5, running: 12, kv_tokens: 13_926, finished: 10 });
  const never = COUNT_COLUMNS.filter((c) => !exposed.has(c));
  assert.deepEqual(never, [
    "oldest_queued_ms",
    "replicas",
    "replicas_warming",
    "shed",
    "rate_limited",
    "errors",
    "admitted",
  ]);
});

Deno.test("vLLM: the pre-V1 KV name is read, a counter that goes back gives no row, no cache config no KV", () => {
  const v1 = text("vllm_metrics.txt");
  const old = parsePrometheusText(v1.replaceAll("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"));
  const exposed = new Set(VLLM.exposed({ metrics: old }));
  const row = VLLM.row({ metrics: old, previous: old }, exposed);
  assert.ok("counts" in row);
  assert.equal(row.counts.kv_tokens, 13_926);
  assert.equal(row.counts.finished, 0, "450 − 450");
  const restarted = parsePrometheusText(v1.replace("} 318.0", "} 3.0"));
  assert.deepEqual(VLLM.row({ metrics: restarted, previous: old }, exposed), {
    why: "vllm:request_success_total went backwards (a restart)",
  });
  const noConfig = parsePrometheusText(
    v1.split("\n").filter((l) => !l.startsWith("vllm:cache_config_info")).join("\n"),
  );
  assert.deepEqual(VLLM.exposed({ metrics: noConfig }), ["queue_len", "running", "finished"]);
});
