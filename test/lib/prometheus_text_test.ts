import assert from "node:assert/strict";
import { hasPrefix, parsePrometheusText, promValue, samplesOf, sumOf } from "../../lib/prometheus_text.ts";

const FIXTURES = new URL("../fixtures/server_metrics/", import.meta.url);

Deno.test("parsePrometheusText() reads llama-server's recorded /metrics whole", () => {
  const t = parsePrometheusText(Deno.readTextFileSync(new URL("llamacpp_metrics_busy.txt", FIXTURES)));
  assert.equal(t.dropped, 0);
  assert.equal(t.samples.length, 15, "15 metrics, one sample each");
  assert.equal(sumOf(t, "llamacpp:requests_processing"), 4);
  assert.equal(sumOf(t, "llamacpp:requests_deferred"), 4);
  assert.equal(sumOf(t, "llamacpp:n_busy_slots_per_decode"), 3.92857);
  assert.equal(t.types["llamacpp:prompt_tokens_total"], "counter");
  assert.equal(t.types["llamacpp:requests_deferred"], "gauge");
  assert.equal(hasPrefix(t, "llamacpp:"), true);
  assert.equal(hasPrefix(t, "vllm:"), false);
});

Deno.test("parsePrometheusText() reads labels with escapes, several label sets, NaN, ±Inf and timestamps", () => {
  const t = parsePrometheusText([
    '# HELP a a "help" line',
    "# TYPE a gauge",
    'a{engine="0",model_name="m \\"q\\" \\\\ \\n x"} 2.5',
    'a{engine="1"} 1.5e1 1712345678000',
    "b NaN",
    "c +Inf",
    "d -Inf",
    'e{le="+Inf",} 3',
    "",
    "# just a comment",
  ].join("\r\n"));
  assert.equal(t.dropped, 0);
  assert.deepEqual(samplesOf(t, "a").map((s) => s.labels), [{ engine: "0", model_name: 'm "q" \\ \n x' }, {
    engine: "1",
  }]);
  // 2.5 + 1.5e1 = 17.5
  assert.equal(sumOf(t, "a"), 17.5);
  assert.ok(Number.isNaN(samplesOf(t, "b")[0]!.value));
  assert.equal(sumOf(t, "b"), null, "a NaN is not a usable value");
  assert.equal(sumOf(t, "c"), null);
  assert.equal(samplesOf(t, "d")[0]!.value, -Infinity);
  assert.deepEqual(samplesOf(t, "e")[0]!.labels, { le: "+Inf" }, "a trailing comma is allowed");
  assert.equal(sumOf(t, "missing"), null);
});

Deno.test("a malformed line is dropped and counted, the rest of the answer kept", () => {
  const t = parsePrometheusText([
    "ok_metric 1",
    "no_value",
    "bad value",
    'unclosed{a="1" 2',
    'bad_escape{a="\\x"} 3',
    "9starts_with_digit 4",
    "two_stamps 5 6 7",
    "float_stamp 5 1.5",
    "<html>",
    "also_ok 2",
  ].join("\n"));
  assert.equal(t.dropped, 8);
  assert.equal(t.firstDropped, "no_value");
  assert.deepEqual(t.samples.map((s) => s.name), ["ok_metric", "also_ok"]);
});

Deno.test("promValue() takes the text format's numbers and nothing else", () => {
  assert.equal(promValue("0.425"), 0.425);
  assert.equal(promValue("-3"), -3);
  assert.equal(promValue("1e-3"), 0.001);
  assert.equal(promValue(".5"), 0.5);
  assert.equal(promValue("0x10"), null);
  assert.equal(promValue(""), null);
  assert.equal(promValue("1,5"), null);
});
