/**
 * The claim files shipped in data/claims/ against the committed sample runs:
 * each is audited on its run, as `deno task audit RUN --claim FILE` does
 * (the workload's SLO policy data/slo/design-v1.json when the claim states
 * none), and must be reproduced — under its stated rules, or, for a claim
 * that hides its rules, only under the rule choice written here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { audit, type AuditResult } from "../../../analysis/audit/audit.ts";
import { loadClaim } from "../../../analysis/audit/claim.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { loadSloPolicy } from "../../../analysis/goodput/policy.ts";

const DATA = new URL("../../../data/", import.meta.url).pathname;
const POLICY = join(DATA, "slo/design-v1.json");

/** How each shipped claim must be reproduced. `hidden`: the rule choice that does, which is not the default. */
const EXPECTED: Record<
  string,
  { run: string; reproduced: "stated" | { hidden: Partial<AuditResult["reproducing"][number]> } }
> = {
  "explore-acceptance-stated.json": { run: "runs/explore", reproduced: "stated" },
  "explore-vendor-success-rate.json": {
    run: "runs/explore",
    reproduced: { hidden: { denominator: "completed", gates: "off", slo: "stated", window: "policy" } },
  },
};

const runs = new Map<string, LoadedRun>();
async function runOf(dir: string): Promise<LoadedRun> {
  if (!runs.has(dir)) runs.set(dir, await loadRun(join(DATA, dir), { verify: "strict" }));
  return runs.get(dir)!;
}

/** The headline claims (a peer tool's own number): audited end to end on an import in headline_audit_test.ts. */
const HEADLINE_CLAIMS = [
  "aiperf-run1-request-throughput.json",
  "aiperf-run1-ttft-p99.json",
  "guidellm-stripped-request-rate.json",
  "llmperf-bedrock70b-completed-per-min.json",
  "llmperf-bedrock70b-e2e-p50.json",
  "llmperf-bedrock70b-ttft-p99.json",
  "vllm-fixture-request-throughput.json",
];

Deno.test("every claim file in data/claims has a sample run it is checked against", () => {
  const files = [...Deno.readDirSync(join(DATA, "claims"))].map((e) => e.name).filter((n) => n.endsWith(".json"))
    .sort();
  const headline = (n: string) => "headline" in JSON.parse(Deno.readTextFileSync(join(DATA, "claims", n)));
  assert.deepEqual(files.filter((n) => !headline(n)), Object.keys(EXPECTED).sort());
  assert.deepEqual(files.filter(headline), HEADLINE_CLAIMS);
});

Deno.test("the audit reproduces each shipped claim on its sample run", async (t) => {
  const policy = await loadSloPolicy(POLICY);
  for (const [file, want] of Object.entries(EXPECTED)) {
    await t.step(file, async () => {
      const claim = await loadClaim(join(DATA, "claims", file));
      const result = audit(await runOf(want.run), claim, { policy, policy_source: POLICY });
      assert.deepEqual(result.notes, [], "no finding against the claim");
      if (want.reproduced === "stated") {
        assert.ok(result.stated.match, `stated rules give ${result.stated.value}, claimed ${claim.value}`);
        assert.deepEqual(result.assumed, [], "every rule stated");
        return;
      }
      // A vendor-style claim: the defaults do not give it; the hidden rule choice does.
      assert.ok(!result.stated.match, `the defaults must not reproduce it (recomputed ${result.stated.value})`);
      assert.ok(result.assumed.length > 0, "some rules were not stated");
      const hidden = want.reproduced.hidden;
      const found = result.reproducing.filter((c) =>
        Object.entries(hidden).every(([k, v]) => c[k as keyof typeof c] === v)
      );
      assert.equal(
        found.length,
        1,
        `reproduced under ${JSON.stringify(hidden)}: ${JSON.stringify(result.reproducing)}`,
      );
    });
  }
});
