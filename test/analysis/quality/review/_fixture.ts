/**
 * Hand-built runs of the design-v1 workload with saved outputs, for the review tests: every case of the workload
 * answered in each stage, a few requests failed or answered without a saved output, ids and names that would be easy
 * to find if they leaked into a page.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RequestRow } from "../../../../schema/events.ts";
import { loadWorkload } from "../../../../schema/workload_file.ts";
import { makeManifest, req, writeRun } from "../../_fixture.ts";

/** The design-v1 workload folder. */
export const DESIGN_V1 = fileURLToPath(new URL("../../../../data/workloads/design-v1", import.meta.url));
export const design = await loadWorkload(DESIGN_V1);

/** What {@linkcode writeReviewRun} wrote. */
export interface ReviewRun {
  dir: string;
  runId: string;
  route: string;
  stages: string[];
  requests: RequestRow[];
  /** The saved answers by request_id. */
  outputs: Map<string, string>;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A run folder of the design-v1 workload: each case once per stage; request i of the run is failed when i % 17 === 5
 * and answered without a saved output when i % 19 === 7. Request ids are `<tag>-q-<i>`.
 */
export function writeReviewRun(
  dir: string,
  o: { runId: string; route: string; tag: string; stages: string[] },
): ReviewRun {
  const requests: RequestRow[] = [];
  const outputs = new Map<string, string>();
  const lines: string[] = [];
  let i = 0;
  o.stages.forEach((stage, s) => {
    for (const c of design.workload.cases) {
      const id = `${o.tag}-q-${String(i).padStart(4, "0")}`;
      const t = s * 10_000 + i;
      const failed = i % 17 === 5;
      const text = `Answer ${i} of the ${c.class} case: the figures as the document states them.`;
      requests.push(req({
        request_id: id,
        case_id: c.case_id,
        class: c.class,
        stage,
        route: o.route,
        scheduled_ms: t,
        completed_ms: t + 800,
        prompt_sha256: c.prompt_sha256,
        outcome: failed ? "http_error" : "ok",
        http_status: failed ? 500 : 200,
        output_sha256: failed ? null : sha(text),
      }));
      if (!failed && i % 19 !== 7) {
        outputs.set(id, text);
        lines.push(JSON.stringify({ request_id: id, text, tool_calls: "[]" }));
      }
      i++;
    }
  });
  Deno.mkdirSync(dir, { recursive: true });
  const outputsText = lines.join("\n") + "\n";
  Deno.writeTextFileSync(join(dir, "outputs.jsonl"), outputsText);
  const rubric_hashes = Object.fromEntries(design.rubrics!.rubrics.map((r) => [r.rubric_id, r.sha256]));
  const base = makeManifest(
    o.stages.map((name, s) => ({
      name,
      kind: "steady",
      start_ms: s * 10_000,
      end_ms: s * 10_000 + 9_999,
      offered_rps: 1,
    })),
  );
  const manifest = {
    ...base,
    run_id: o.runId,
    workload: {
      path: DESIGN_V1,
      name: "design-v1",
      version: "1.0.0",
      kind: "design",
      sha256: design.sha256,
      prompt_hashes: {},
      rubric_hashes,
    },
    targets: base.targets.map((t) => ({ ...t, route: o.route })),
    conditions: { ...base.conditions, route: o.route },
    files: { "outputs.jsonl": sha(outputsText) },
  };
  writeRun(dir, manifest, { requests, attempts: [] });
  return { dir, runId: o.runId, route: o.route, stages: o.stages, requests, outputs };
}

/** Two runs of two routes in a temporary folder: `zephyr` (tag zph) and `quokka` (tag qka), stages warmstage-x and holdstage-y. */
export async function twoRuns(): Promise<{ root: string; runs: ReviewRun[] }> {
  const root = await Deno.makeTempDir({ prefix: "gp-review-" });
  const stages = ["warmstage-x", "holdstage-y"];
  const runs = [
    writeReviewRun(join(root, "run-zephyr"), { runId: "runid-zephyr-7731", route: "route-zephyr", tag: "zph", stages }),
    writeReviewRun(join(root, "run-quokka"), { runId: "runid-quokka-4410", route: "route-quokka", tag: "qka", stages }),
  ];
  return { root, runs };
}
