/**
 * importPeer: the one import path of the public API and of `npx deno task import` (importers/cli.ts), on the real
 * AIPerf run1 files of ../shared/data/peers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importPeer } from "../../importers/import_peer.ts";
import { InputError } from "../../schema/errors.ts";

const PEERS = fileURLToPath(new URL("../../../shared/data/peers/", import.meta.url));
const SLO = fileURLToPath(new URL("../../data/slo/imported-e2e-10s.json", import.meta.url));

Deno.test("importPeer writes a per-request file as a run and a summary as claims", async (t) => {
  const tmp = await Deno.makeTempDir();
  try {
    await t.step(
      "AIPerf run1 profile_export.jsonl: 100 requests, 89 ok, 11 cancelled (aborted), SLO copied",
      async () => {
        const steps: string[] = [];
        const done = await importPeer("aiperf", [`${PEERS}aiperf/run1/profile_export.jsonl`], join(tmp, "run"), {
          slo: SLO,
          onProgress: (m) => steps.push(m),
        });
        assert.equal(done.kind, "run");
        if (done.kind !== "run") return;
        // jq -s 'length' profile_export.jsonl → 100; jq -s 'map(select(.error != null)) | length' → 11, every one
        // code 499 RequestCancellationError (jq -s 'map(.error.type) | unique')
        assert.equal(done.requests, 100);
        assert.deepEqual(done.outcomes, { ok: 89, aborted: 11 });
        assert.equal(done.slo, "slo.json");
        assert.ok(Deno.statSync(join(tmp, "run", "slo.json")).isFile);
        assert.match(steps[0]!, /^read 100 request records$/);
      },
    );

    await t.step("AIPerf run1 profile_export_aiperf.json: claims, and the unused SLO named", async () => {
      const done = await importPeer("aiperf", [`${PEERS}aiperf/run1/profile_export_aiperf.json`], join(tmp, "c"), {
        slo: SLO,
      });
      assert.equal(done.kind, "claims");
      if (done.kind !== "claims") return;
      assert.equal(done.slo_unused, SLO);
      // ttft and request_latency, each p1 p5 p25 p50 p75 p90 p95 p99: 2 × 8 latency percentiles as claim files
      assert.equal(done.claim_files.length, 16);
      assert.ok(Deno.statSync(join(tmp, "c", "claims.json")).isFile);
    });

    await t.step("an SLO file that cannot be read is an InputError naming it; nothing is written", async () => {
      const out = join(tmp, "bad");
      await assert.rejects(
        importPeer("aiperf", [`${PEERS}aiperf/run1/profile_export.jsonl`], out, { slo: join(tmp, "nope.json") }),
        (e) => e instanceof InputError && /--slo .*nope\.json: cannot read/.test(e.message),
      );
      assert.throws(() => Deno.statSync(out));
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
