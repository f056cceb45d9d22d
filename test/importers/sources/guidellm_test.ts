import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import { parseGuidellm, readGuidellm } from "../../../importers/sources/guidellm.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import type { SourceRun } from "../../../importers/source.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The real files (../shared/data/peers/README.md), read in place. */
const PEERS = join(ROOT, "../shared/data/peers/guidellm");
const STRIPPED = ["a1fe883", "f1dfdc6_main"].flatMap((d) =>
  ["json", "yaml"].map((ext) => join(PEERS, d, `benchmarks_stripped.${ext}`))
);
const V2 = join(PEERS, "llm-d-benchmark_fixture/guidellm_report_v2.json");

const value = (run: SourceRun, key: string) => {
  const h = run.headlines.find((x) => x.key === key);
  assert.ok(h, `headline ${key}`);
  return h.value;
};

Deno.test("readGuidellm() reads the v0.2–0.3 stripped reports, JSON and YAML alike", async (t) => {
  for (const file of STRIPPED) {
    await t.step(file.slice(PEERS.length + 1), async () => {
      const run = await readGuidellm([file]);
      // python: b = json.load(f)["benchmarks"][0]; b["request_totals"] → 46 successful, 0 errored, 1 incomplete;
      // len(b["requests"]["successful"]) → 1; b["args"]["strategy"] → synchronous; b["duration"] → 29.997201442718506
      assert.deepEqual(run.stages, [{
        name: "synchronous",
        rate_rps: null,
        concurrency: 1,
        start_epoch_ms: 1749157168182.7004, // b["start_time"] × 1000
        end_epoch_ms: 1749157198179.9019, // b["end_time"] 1749157198.1799018 × 1000 (float)
        duration_s: 29.997201442718506,
        totals: { ok: 46, error: 0, cancelled: null, incomplete: 1 },
      }]);
      assert.equal(run.requests.length, 1);
      assert.equal(run.summary_only, false);
      const r = run.requests[0]!;
      assert.equal(r.id, "73054dd1-486f-4894-a861-075750b82453");
      assert.equal(r.outcome, "ok");
      // scheduler_info.targeted_start_time 1749157168.179883 s; start_time 1749157168.1827004 s: sent 2.82 ms late
      assert.equal(r.scheduled_epoch_ms, 1749157168179.883);
      assert.equal(r.sent_epoch_ms, 1749157168182.7004);
      assert.equal(r.ttft_ms, 21.281957626342773); // time_to_first_token_ms = 1000 × (first_token − start)
      assert.equal(r.e2e_ms, 689.1846656799316); // request_latency 0.6891846656799316 s
      assert.deepEqual([r.input_tokens, r.output_tokens], [257, 128]);
      // v0.3's TPOT divides last − first token by all 128 tokens, ITL by 127: tpot = itl × 127 / 128
      // 5.258346167136365 × 127 / 128 = 5.217265337705612
      const tpot = r.tool_metrics["guidellm.time_per_output_token_ms"]!;
      assert.ok(Math.abs(tpot - r.tool_metrics["guidellm.inter_token_latency_ms"]! * 127 / 128) < 1e-12);
      assert.equal(
        value(run, "benchmarks[0].metrics.time_to_first_token_ms.successful.percentiles.p99"),
        21.281957626342773,
      );
      assert.equal(value(run, "benchmarks[0].metrics.requests_per_second.successful.mean"), 1.5481806532737452);
      assert.match(
        run.notes.join("\n"),
        /keeps 1 request records of 47 \(request_totals: 46 successful, 0 errored, 1 incomplete/,
      );
      assert.ok(run.lacks.some((l) => l.field === "requests (sampled)"));
    });
  }
  await t.step("the YAML twin gives the JSON's requests, stages and headlines", async () => {
    const [json, yaml] = await Promise.all([readGuidellm([STRIPPED[0]!]), readGuidellm([STRIPPED[1]!])]);
    assert.deepEqual(yaml.stages, json.stages);
    assert.deepEqual(yaml.requests.map(({ at: _, ...r }) => r), json.requests.map(({ at: _, ...r }) => r));
    assert.deepEqual(yaml.headlines, json.headlines);
    // the YAML writer left out the empty errored and incomplete lists: said so
    assert.match(yaml.notes.join("\n"), /requests\.errored is absent/);
  });
});

Deno.test("readGuidellm() reads the metadata.version 2 report (0.8) as a summary per benchmark", async (t) => {
  const run = await readGuidellm([V2]);
  await t.step("two constant-rate stages with the tool's totals, no records", () => {
    assert.equal(run.tool_version, "0.8.0.dev18");
    assert.equal(run.summary_only, true);
    // config.strategy rate 2.0 and 4.0; metrics.request_totals 2 successful each; duration 5.01964807510376, 2.5186…
    assert.deepEqual(run.stages.map((s) => [s.name, s.rate_rps, s.totals.ok, s.totals.error, s.duration_s]), [
      ["constant@2", 2, 2, 0, 5.01964807510376],
      ["constant@4", 4, 2, 0, 2.5186119079589844],
    ]);
    assert.ok(run.lacks.some((l) => l.field === "per-request records"));
  });
  await t.step("headlines per benchmark; version 2's TPOT includes TTFT, as the file's own numbers show", () => {
    const m = (k: string) => value(run, `benchmarks[0].metrics.${k}.successful.mean`)!;
    // 2 requests × 8 output tokens; per request tpot = (ttft + 7 × itl) / 8, token-weighted mean:
    // (11.481165885925293 + 7 × 1.1508464813232422) / 8 = 19.537091255187988 / 8 = 2.4421364068984985
    assert.ok(
      Math.abs(m("time_per_output_token_ms") - (m("time_to_first_token_ms") + 7 * m("inter_token_latency_ms")) / 8) <
        1e-12,
    );
    assert.equal(
      value(run, "benchmarks[1].metrics.time_to_first_token_ms.successful.percentiles.p99"),
      10.147809982299805,
    );
    const tpot = run.headlines.find((h) => h.key === "benchmarks[0].metrics.time_per_output_token_ms.successful.mean")!;
    assert.match(tpot.definition, /TTFT is inside it/);
    assert.equal(run.headlines.find((h) => h.key.endsWith("request_latency.successful.mean"))!.unit, "s");
  });
});

Deno.test("parseGuidellm() reads version 2 request records, errored and incomplete ones included", () => {
  const report = JSON.parse(Deno.readTextFileSync(V2));
  const rec = (id: string, over: Record<string, unknown>, timings: Record<string, number | null>) => ({
    type_: "generative_request_stats",
    request_id: id,
    info: { status: "completed", error: null, timings: { targeted_start: 100, request_start: 100.5, ...timings } },
    prompt_tokens: 10,
    output_tokens: 4,
    ...over,
  });
  report.benchmarks[0].requests = {
    successful: [
      rec("a", { request_latency: 0.25, time_to_first_token_ms: 50 }, {
        first_token_iteration: 100.55,
        request_end: 100.75,
      }),
    ],
    errored: [
      rec("b", {
        info: { status: "errored", error: "HTTP 500", timings: { targeted_start: 101, request_start: 101.25 } },
      }, {}),
    ],
    incomplete: [rec("c", { output_tokens: 2 }, { first_token_iteration: 102.5 })],
    total: null,
  };
  const run = parseGuidellm(sourceText("v2.json", JSON.stringify(report)));
  assert.equal(run.summary_only, false);
  assert.deepEqual(run.requests.map((r) => [r.id, r.outcome, r.tool_status]), [
    ["a", "ok", null],
    ["b", "error", "HTTP 500"],
    ["c", "incomplete", "completed"],
  ]);
  const a = run.requests[0]!;
  // targeted_start 100 s, request_start 100.5 s, request_end 100.75 s
  assert.deepEqual([a.scheduled_epoch_ms, a.sent_epoch_ms, a.completed_epoch_ms, a.e2e_ms, a.ttft_ms], [
    100000,
    100500,
    100750,
    250,
    50,
  ]);
  assert.equal(run.requests[1]!.scheduled_epoch_ms, 101000);
  assert.match(run.notes.join("\n"), /benchmarks\[1\] keeps 0 request records of the 2/);
});

Deno.test("parseGuidellm() refuses malformed reports, naming the file and the key or line", async (t) => {
  const json = Deno.readTextFileSync(STRIPPED[0]!);
  const yaml = Deno.readTextFileSync(STRIPPED[1]!);
  const refuse = (path: string, text: string, pattern: RegExp) => {
    const src = sourceText(path, text);
    assert.throws(() => parseGuidellm(src), (e) => e instanceof InputError && pattern.test(e.message));
  };
  await t.step(
    "a JSON report cut in the middle",
    () => refuse("cut.json", json.slice(0, json.length / 2), /^cut\.json:\d+:\d+: not valid JSON/),
  );
  await t.step(
    "a YAML report cut inside a quoted string",
    () =>
      refuse(
        "cut.yaml",
        yaml.slice(0, yaml.indexOf('output: ", said Jane') + 30),
        /^cut\.yaml:\d+:\d+: not valid YAML/,
      ),
  );
  await t.step(
    "a record's start time of the wrong type",
    () =>
      refuse(
        "typed.json",
        json.replace(
          '"start_time": 1749157168.1827004, "end_time": 1749157168.871885',
          '"start_time": "soon", "end_time": 1749157168.871885',
        ),
        /typed\.json: benchmarks\[0\]\.requests\.successful\[0\]\.start_time: /,
      ),
  );
  await t.step("a record without its scheduler info", () => {
    const o = JSON.parse(json);
    delete o.benchmarks[0].requests.successful[0].scheduler_info;
    return refuse("nosched.json", JSON.stringify(o), /benchmarks\[0\]\.requests\.successful\[0\]\.scheduler_info: /);
  });
  await t.step(
    "an unknown report version",
    () =>
      refuse(
        "v3.json",
        JSON.stringify({ metadata: { version: 3 }, benchmarks: [] }),
        /metadata\.version 3: .* does not know/,
      ),
  );
});
