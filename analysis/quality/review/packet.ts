/**
 * A review packet's content: the blinded data its page embeds (prompts, answers, rubrics and each rater's list under
 * opaque ids, nothing else) and the sealed key that maps the ids back to runs and requests, with the sample's design.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { canonicalJson, type Rubric } from "../../../schema/rubric.ts";
import type { ChatMessage } from "../../../schema/workload.ts";
import { type Assignment, assignRaters } from "./assign_raters.ts";
import { type DrawnSample, drawSample, type SampleSizing } from "./draw_sample.ts";
import { byText, stream } from "./_random.ts";
import type { ReviewCandidate, ReviewPopulation } from "./population.ts";
import type { KeyItem, ReviewKey, SampleDesign, StratumKey } from "./review_files.ts";

/** A rubric as the page shows it. */
export type PacketRubric = Pick<Rubric, "rubric_id" | "version" | "instructions" | "criteria" | "examples">;

/** One item as the page shows it: no run, request, route, stage, model, timing or place in the sample. */
export interface PacketItem {
  /** The sha256 of its rubric (a key of {@linkcode PacketData.rubrics}). */
  rubric: string;
  messages: ChatMessage[];
  answer: string;
  /** The answer's tool calls (none for most open-ended answers). */
  tool_calls: unknown[];
}

/** What the page embeds (as JSON). */
export interface PacketData {
  format: "review-packet";
  version: 1;
  packet_id: string;
  /** sha256 of the canonical JSON of everything here but `packet_id` and itself. */
  packet_sha256: string;
  rubrics: Record<string, PacketRubric>;
  /** By opaque id, in id order. */
  items: Record<string, PacketItem>;
  /** Each rater's item ids in the order their page shows them. */
  raters: Record<string, string[]>;
}

/** Options of {@linkcode buildPacket}. */
export interface BuildPacketOptions {
  strata: readonly StratumKey[];
  sizing: SampleSizing;
  seed: number;
  raters: readonly string[];
  double_share: number;
  /** The run folders as the key names them (relative to the key's folder), in population run order. */
  runDirs: readonly string[];
}

/** A packet before its page is written: the page's data and the key (its page hash and time filled by the writer). */
export interface BuiltPacket {
  data: PacketData;
  key: Omit<ReviewKey, "packet_file" | "html_sha256" | "created_iso">;
  sample: DrawnSample<ReviewCandidate>;
  assignment: Assignment;
}

/**
 * `n` distinct opaque ids `i-xxxxxxxx` from the packet's seed.
 *
 * @example The same seed, the same ids
 * ```ts
 * import assert from "node:assert/strict";
 * import { opaqueIds } from "./packet.ts";
 * const ids = opaqueIds(5, 1);
 * assert.equal(new Set(ids).size, 5);
 * assert.ok(ids.every((id) => /^i-[0-9a-f]{8}$/.test(id)));
 * assert.deepEqual(opaqueIds(5, 1), ids);
 * ```
 */
export function opaqueIds(n: number, seed: number): string[] {
  const rand = stream(seed, "ids");
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < n) {
    const id = `i-${Math.floor(rand() * 0x100000000).toString(16).padStart(8, "0")}`;
    if (!seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/**
 * The hex sha256 of a value's canonical JSON (keys sorted, no spaces).
 *
 * @example Key order does not change it
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalSha256 } from "./packet.ts";
 * assert.equal(canonicalSha256({ a: 1, b: [2] }), canonicalSha256({ b: [2], a: 1 }));
 * ```
 */
export function canonicalSha256(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/**
 * Draws the sample ({@linkcode drawSample}), gives each drawn answer an opaque id, assigns the raters
 * ({@linkcode assignRaters}) and builds the page's data and the key. The same population and options give the same
 * packet, byte for byte.
 *
 * @example Two answers of one run, one rater: the page's data has opaque ids, the key the requests
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildPacket } from "./packet.ts";
 * const rubric = { rubric_id: "r", version: "1.0.0", instructions: "i", criteria: [], examples: {}, sha256: "s" };
 * const answer = (request_id: string) => ({
 *   run: 0, run_id: "run-1", request_id, case_id: "c", class: "k", route: "hosted", stage: "steady", rubric,
 *   messages: [{ role: "user", content: "Summarise." }], answer: "A summary.", tool_calls: "[]",
 * });
 * const run = { path: "run", run_id: "run-1", run_json_sha256: "a", workload_sha256: "b", outputs_sha256: "c",
 *   answered: 2, with_output: 2, eligible: 2 };
 * const population = { runs: [run], candidates: [answer("q1"), answer("q2")], classes: ["k"], rubrics: [] } as never;
 * const p = buildPacket(population, { strata: ["class"], sizing: { mode: "per_stratum", per_stratum: 2 }, seed: 1,
 *   raters: ["ana"], double_share: 0, runDirs: ["../run"] });
 * assert.equal(Object.keys(p.data.items).length, 2);
 * assert.ok(!JSON.stringify(p.data).includes("q1") && !JSON.stringify(p.data).includes("hosted"));
 * assert.deepEqual(p.key.items.map((i) => i.request_id).sort(), ["q1", "q2"]);
 * ```
 */
export function buildPacket(population: ReviewPopulation, options: BuildPacketOptions): BuiltPacket {
  const sample = drawSample(population.candidates, options);
  const ids = opaqueIds(sample.items.length, options.seed);
  const drawn = sample.items.map((s, i) => ({ id: ids[i]!, stratum: s.stratum, c: s.item }));
  const double_share = options.raters.length < 2 ? 0 : options.double_share;
  const assignment = assignRaters(drawn, options.raters, { double_share, seed: options.seed });
  const rubrics: Record<string, PacketRubric> = {};
  const items: Record<string, PacketItem> = {};
  for (const d of [...drawn].sort((a, b) => byText(a.id, b.id))) {
    const r = d.c.rubric;
    rubrics[r.sha256] = {
      rubric_id: r.rubric_id,
      version: r.version,
      instructions: r.instructions,
      criteria: r.criteria,
      examples: r.examples,
    };
    items[d.id] = {
      rubric: r.sha256,
      messages: d.c.messages,
      answer: d.c.answer,
      tool_calls: toolCalls(d.c.tool_calls),
    };
  }
  const body = { format: "review-packet" as const, version: 1 as const, rubrics, items, raters: assignment.by_rater };
  const packet_sha256 = canonicalSha256(body);
  const packet_id = `rv-${packet_sha256.slice(0, 12)}`;
  const data: PacketData = { ...body, packet_id, packet_sha256 };
  const keyItems: KeyItem[] = [...drawn].sort((a, b) => byText(a.id, b.id)).map((d) => ({
    item: d.id,
    run: d.c.run,
    request_id: d.c.request_id,
    case_id: d.c.case_id,
    class: d.c.class,
    route: d.c.route,
    stage: d.c.stage,
    stratum: d.stratum,
    rubric_id: d.c.rubric.rubric_id,
    rubric_sha256: d.c.rubric.sha256,
    raters: assignment.raters_of.get(d.id)!,
  }));
  const s = options.sizing;
  const design: SampleDesign = {
    seed: options.seed,
    strata_keys: [...options.strata],
    classes: population.classes,
    sizing: {
      mode: s.mode,
      per_stratum: s.mode === "per_stratum" ? s.per_stratum : null,
      total: s.mode === "total" ? s.total : s.mode === "half_width" ? sample.total : null,
      half_width: s.mode === "half_width" ? s.half_width : null,
      level: s.mode === "half_width" ? s.level : null,
      min_per_stratum: s.mode === "per_stratum" ? null : s.min_per_stratum,
      n_exact: sample.n_exact,
    },
    population: sample.population,
    sampled: sample.total,
    strata: sample.strata,
    double_share,
    double_rated: assignment.double_rated,
    method: designMethod(options.sizing, options.strata, assignment.raters.length, double_share),
  };
  const key = {
    kind: "review-key" as const,
    schema_version: 1 as const,
    packet_id,
    packet_sha256,
    design,
    runs: population.runs.map((r, i) => ({
      dir: options.runDirs[i]!,
      run_id: r.run_id,
      run_json_sha256: r.run_json_sha256,
      workload_sha256: r.workload_sha256,
      outputs_sha256: r.outputs_sha256,
      answered: r.answered,
      with_output: r.with_output,
      eligible: r.eligible,
    })),
    rubrics: [...new Map(drawn.map((d) => [d.c.rubric.sha256, d.c.rubric])).values()].sort((a, b) =>
      byText(a.sha256, b.sha256)
    ),
    raters: assignment.raters,
    items: keyItems,
    assignments: assignment.by_rater,
  };
  return { data, key, sample, assignment };
}

/** The saved tool calls as a list (the runner saves a JSON array; anything else is shown as it is). */
function toolCalls(text: string): unknown[] {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [v];
  } catch {
    return text ? [text] : [];
  }
}

/** The design in words, as the key and the quality table's details state it. */
function designMethod(sizing: SampleSizing, strata: readonly StratumKey[], raters: number, share: number): string {
  const size = sizing.mode === "per_stratum"
    ? `${sizing.per_stratum} per stratum (all of a smaller stratum)`
    : sizing.mode === "total"
    ? `a total of ${sizing.total} split in proportion to the strata (largest remainder, at least ` +
      `${sizing.min_per_stratum} each)`
    : `the total a ±${sizing.half_width} interval at ${sizing.level} needs on the whole population (Cochran, with ` +
      `the finite-population correction), split in proportion to the strata (at least ${sizing.min_per_stratum} each)`;
  const double = raters < 2 || share === 0
    ? "each item rated by one rater"
    : `${share} of the items rated by all ${raters} raters for agreement, the rest dealt one rater each`;
  return `seeded simple random sample without replacement within each stratum (by ${strata.join(", ")}): ${size}; ` +
    `${double}; every rater's items in their own seeded order; route, model, latency, run and order hidden behind ` +
    `opaque ids`;
}
