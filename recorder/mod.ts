/**
 * The production recorder: instruments a Deno or Node (20+) service so that its users' tasks are written to the
 * contract's event log (schema/events.ts) — from the user's action to the rendered answer, with the model calls,
 * retrieval and tool steps and the page's own timing — as a production run folder the analysis reads like any run
 * (docs/recorder.md). Imports only `schema/`, npm packages and `node:` modules; `deno task recorder-node` bundles it
 * for Node as `out/recorder-node/recorder.mjs`.
 *
 * @example Record one task and close
 * ```ts
 * import { recorder } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const dir = Deno.makeTempDirSync();
 * const out = `${dir}/run`;
 * const rec = recorder({ out, run_id: "prod-1", app: { name: "chat", version: "1.0.0" } });
 * const task = rec.begin({ class: "interactive" });
 * const call = task.attempt({ model: "m" });
 * call.headers(200);
 * call.token();
 * call.end({ ok: true, usage: { input_tokens: 12, output_tokens: 1 } });
 * task.complete({ output: "hi", valid: true, quality_ok: true });
 * await rec.close();
 * assert.equal(rec.stats().written, 1);
 * assert.equal(JSON.parse(Deno.readTextFileSync(`${out}/run.json`)).observation.status, "closed");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
export { recorder } from "./recorder.ts";
export { recordingFetch, type RecordingFetchOptions } from "./fetch.ts";
export { type OtlpExporter, otlpExporter, type OtlpExporterOptions, type OtlpExporterStats } from "./otlp.ts";
export { MAX_PAGE_BODY, type RecorderRoutes, recorderRoutes, type RecorderRoutesOptions } from "./http.ts";
export { isSampled, sampleHash, SAMPLING_RULE } from "./sampling.ts";
export { DEFINITIONS } from "./manifest.ts";
export { DEFAULTS } from "./options.ts";
export type * from "./types.ts";
