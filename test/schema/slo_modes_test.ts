import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import { InputError } from "../../schema/errors.ts";
import { SloPolicy } from "../../schema/slo.ts";

const SAFE = ["output_valid", "quality_ok", "safety_ok"];
const TOOLS = ["output_valid", "quality_ok", "auth_ok"];
const ALL = ["output_valid", "quality_ok", "safety_ok", "auth_ok"];

/** A policy: qa requires safety_ok, tool requires auth_ok, the default both; `extra` adds or replaces keys. */
function policy(extra: Record<string, unknown> = {}, classes: Record<string, unknown> = {}): unknown {
  return {
    classes: { qa: { e2e_ms: 1000, gates: SAFE }, tool: { e2e_ms: 2000, gates: TOOLS }, ...classes },
    default: { e2e_ms: 3000, gates: ALL },
    ...extra,
  };
}

/** The problems loadSloPolicy reports for `value` written to a file (after the file name). */
async function problems(value: unknown): Promise<string[]> {
  const file = join(Deno.makeTempDirSync(), "slo.json");
  Deno.writeTextFileSync(file, JSON.stringify(value));
  try {
    await loadSloPolicy(file);
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return e.problems.map((p) => p.slice(file.length + 2));
  }
  return [];
}

Deno.test("an SLO policy whose degraded mode relaxes auth_ok or safety_ok is refused, naming the field", async (t) => {
  await t.step("a class's own mode that drops safety_ok, which the class requires", async () => {
    const p = policy({}, {
      qa: { e2e_ms: 1000, gates: SAFE, modes: { short: { output: "short", gates: ["output_valid"] } } },
    });
    assert.deepEqual(await problems(p), [
      'classes.qa.modes.short.gates: mode "short" drops safety_ok, which class qa requires: a degraded mode may ' +
      "never relax authorization or safety",
    ]);
  });
  await t.step("a policy-wide mode that drops auth_ok: every class requiring it is named", async () => {
    const p = policy({ modes: { fast: { output: "no tools", gates: ["output_valid", "safety_ok"] } } });
    assert.deepEqual(await problems(p), [
      'modes.fast.gates: mode "fast" drops auth_ok, which the default class, class tool require: a degraded mode ' +
      "may never relax authorization or safety",
    ]);
  });
  await t.step("default.modes against the default's gates; every problem at once", async () => {
    const p = policy({ default: { gates: ALL, modes: { x: { output: "x", gates: [] } } } });
    assert.deepEqual(await problems(p), [
      'default.modes.x.gates: mode "x" drops auth_ok, which the default class requires: a degraded mode may never ' +
      "relax authorization or safety",
      'default.modes.x.gates: mode "x" drops safety_ok, which the default class requires: a degraded mode may never ' +
      "relax authorization or safety",
    ]);
  });
  await t.step("a policy passed in code gets the same refusal from the schema", () => {
    const r = SloPolicy.safeParse(policy({ modes: { fast: { output: "x", gates: ["output_valid", "auth_ok"] } } }));
    assert.equal(r.success, false);
    assert.deepEqual(r.error!.issues.map((i) => i.path.join(".")), ["modes.fast.gates"]);
    assert.match(r.error!.issues[0]!.message, /drops safety_ok, which the default class, class qa require/);
  });
});

Deno.test("an SLO policy may relax other gates and latency in a mode, and name modes only as mode tokens", async (t) => {
  await t.step("dropping quality_ok and lengthening e2e is allowed", async () => {
    const p = policy({
      modes: {
        "degraded-short": {
          output: "answers cut to 48 tokens",
          gates: ["output_valid", "safety_ok", "auth_ok"],
          e2e_ms: 9000,
        },
      },
    });
    assert.deepEqual(await problems(p), []);
  });
  await t.step("a mode may omit a gate that no class it applies to requires", async () => {
    // The policy-wide mode drops auth_ok, but every class that requires auth_ok (tool, the default) declares the
    // mode itself with auth_ok: the policy-wide one applies only to qa, which does not require it.
    const own = { brief: { output: "brief", gates: ["output_valid", "safety_ok", "auth_ok"] } };
    const p = policy(
      {
        default: { gates: ALL, modes: own },
        modes: { brief: { output: "brief", gates: ["output_valid", "safety_ok"] } },
      },
      { tool: { gates: TOOLS, modes: own } },
    );
    assert.deepEqual(await problems(p), []);
  });
  await t.step("a mode name outside the token alphabet, or a mode without output, is refused", async () => {
    const got = await problems(policy({ modes: { "two words": { output: "x", gates: ALL }, ok: { gates: ALL } } }));
    assert.equal(got.length, 2, got.join("\n"));
    assert.ok(got.some((p) => p.startsWith("modes.two words: ")), got.join("\n"));
    assert.ok(got.some((p) => p.startsWith("modes.ok.output: ")), got.join("\n"));
  });
});
