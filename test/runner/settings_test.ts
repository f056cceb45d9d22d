import assert from "node:assert/strict";
import { InputCheck } from "../../lib/cli.ts";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../runner/attempt.ts";
import { z } from "zod";
import { RUNNER_DEFAULTS, RunnerSettings, settingRule, settingSchemas } from "../../runner/settings.ts";

Deno.test("RunnerSettings gives every setting of a run its default", () => {
  assert.deepEqual(RUNNER_DEFAULTS, {
    format: "both",
    max_send_lag_ms: 1000,
    max_in_flight: 20_000,
    // lag_limit_ms: no default — a fixed send-lag bar only when the user sets one (docs/verdicts.md).
    // 8 MiB = 8 × 1024 × 1024 = 8388608 bytes
    max_response_bytes: 8_388_608,
    save_outputs: false,
    cache_bust: false,
    api_key_env: "GOODPUT_API_KEY",
    progress: true,
    server_metrics: "auto",
    server_timeline: true,
    flush_ms: 100,
    preconnect: 8,
    max_rounds: 8,
  });
  // The attempt's own fallback is the same number, not a second copy.
  assert.equal(DEFAULT_MAX_RESPONSE_BYTES, RUNNER_DEFAULTS.max_response_bytes);
});

Deno.test("RunnerSettings refuses an unknown setting", () => {
  assert.equal(RunnerSettings.safeParse({ max_round: 3 }).success, false);
});

Deno.test("settingRule reads a numeric flag's range from the schema", async (t) => {
  await t.step("positive → above 0; int().min(1) → an integer ≥ 1; min(0) → ≥ 0", () => {
    assert.deepEqual(settingRule("max_send_lag_ms"), { above: 0 });
    assert.deepEqual(settingRule("max_in_flight"), { min: 1, integer: true });
    assert.deepEqual(settingRule("lag_limit_ms"), { min: 0 });
    assert.deepEqual(settingRule("max_response_bytes"), { min: 1, integer: true });
    assert.deepEqual(settingRule("preconnect"), { min: 0, integer: true });
  });
  await t.step("a setting that is not a number has no range", () => {
    assert.throws(() => settingRule("format"), TypeError);
  });
  await t.step("the flag check and the schema refuse the same values", () => {
    const cases: [keyof typeof RUNNER_DEFAULTS, string, boolean][] = [
      ["max_send_lag_ms", "0", false],
      ["max_send_lag_ms", "0.5", true],
      ["max_in_flight", "2.5", false],
      ["max_in_flight", "0", false],
      ["max_in_flight", "1", true],
      ["lag_limit_ms", "-1", false],
      ["lag_limit_ms", "0", true],
      ["max_response_bytes", "0", false],
      ["max_response_bytes", "1", true],
    ];
    for (const [key, text, ok] of cases) {
      const check = new InputCheck();
      check.number(key, text, settingRule(key));
      assert.equal(check.problems.length === 0, ok, `flag check of ${key} = ${text}`);
      assert.equal(RunnerSettings.safeParse({ [key]: Number(text) }).success, ok, `schema of ${key} = ${text}`);
    }
  });
});

Deno.test("settingSchemas renders the schema once and hands out the same frozen rendering", () => {
  const first = settingSchemas();
  assert.equal(settingSchemas(), first);
  const fresh = (z.toJSONSchema(RunnerSettings, { io: "input" }) as { properties: unknown }).properties;
  assert.deepEqual(first, fresh);
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.format) && Object.isFrozen(first.format.enum));
  assert.throws(() => (first.format.enum as string[]).push("xml"), TypeError);
});
