/**
 * The engine-validation workload: short chat turns (and a few long-context ones) for an engine whose model has random
 * weights (`deno task engine`), where no answer can be right. Its cases judge nothing but latency and validity: every
 * `quality_check` is `not_applicable`, no case has an output schema, a canary, tools or a safety role, so only
 * `output_valid` applies. Deterministic: a seeded PRNG, no I/O.
 *
 * @module
 */
import type { ChatMessage, ClassDefaultsFile, Workload, WorkloadCase } from "../../../../schema/workload.ts";
import { promptSha256 } from "../../../../schema/workload_file.ts";
import { makeRng, type Rng } from "../../design-v1/recipe/prng.ts";
import { countMessageTokens, countTokens } from "../../design-v1/recipe/tokens.ts";

const NAME = "engine-validation";
const SEED = 1601;
const SHORT_CASES = 48;
const LONG_CASES = 6;

/** Why no case of this workload is judged for quality (its quality_check's reason). */
const NO_QUALITY = "a model with random weights has no right answer: the case is judged for latency and validity only";

/** Loose enough to hold at low load on 2 CPU cores with the generated models, broken by queueing past saturation. */
const CLASS_DEFAULTS: ClassDefaultsFile = {
  workload: NAME,
  classes: {
    chat: {
      description: "A short chat turn (120–380 prompt tokens, about 70 output tokens): what a chat UI sends.",
      deadline_ms: 10_000,
      ttft_ms: 1_500,
      tpot_ms: 100,
      stream: true,
      priority: 1,
    },
    long_context: {
      description: "A long document (2,800–4,200 prompt tokens) to summarise in three sentences.",
      deadline_ms: 40_000,
      ttft_ms: 20_000,
      tpot_ms: 150,
      stream: true,
      priority: 3,
    },
  },
};

const SHOPS = ["a bookshop", "a bicycle repair shop", "a bakery", "a garden centre", "a music school", "a print shop"];
const TOWNS = ["Northfield", "Lowmoor", "Ashby Cross", "Kelvinbrook", "Easthaven", "Millbridge", "Orton Vale"];
const THINGS = ["the spring catalogue", "a weekend workshop", "the loyalty card", "a delivery slot", "the repair list"];
const VERBS = ["moved", "changed", "reopened", "expanded", "shortened", "rescheduled", "extended"];
const REASONS = ["after a quiet winter", "because of the roadworks", "to match the bus timetable", "for the holidays"];
const QUESTIONS = [
  "Can you summarise what changed in two sentences?",
  "What should a customer do first?",
  "Which of these points matters most for a new customer, and why?",
  "Write a short, friendly reply to the customer.",
  "List the three most useful facts from the note.",
  "Is anything in the note unclear? Say what you would ask.",
];

/** One synthetic sentence about a small business. */
function sentence(r: Rng): string {
  const hour = r.int(7, 11), close = r.int(16, 21), n = r.int(2, 40);
  const thing = r.pick(THINGS);
  return r.pick([
    `${r.pick(SHOPS)} in ${r.pick(TOWNS)} ${r.pick(VERBS)} its opening hours ${r.pick(REASONS)}.`,
    `From Monday it opens at ${hour}:00 and closes at ${close}:00, except on public holidays.`,
    `${thing[0]!.toUpperCase()}${thing.slice(1)} now lists ${n} new items.`,
    `Orders placed before ${close - 4}:00 are packed the same day and sent from ${r.pick(TOWNS)}.`,
    `The team in ${r.pick(TOWNS)} answers questions by phone between ${hour}:30 and ${close - 1}:30.`,
    `A customer asked whether ${thing} can be booked ${n} days ahead.`,
    `Returns are accepted within ${r.int(14, 30)} days with the receipt or the order number.`,
    `Parking behind the shop is free for the first ${r.int(1, 3)} hours.`,
  ]);
}

/** `n` sentences as paragraphs of four. */
function text(r: Rng, n: number): string {
  const s = Array.from({ length: n }, () => sentence(r));
  const paragraphs: string[] = [];
  for (let i = 0; i < s.length; i += 4) paragraphs.push(s.slice(i, i + 4).join(" "));
  return paragraphs.join("\n\n");
}

/** A case of this workload: only output_valid applies (no schema, canary, safety role, tools or quality check). */
function chatCase(
  id: string,
  cls: "chat" | "long_context",
  r: Rng,
  parts: { messages: ChatMessage[]; maxOutput: number; tags: string[]; size: "typical" | "long" },
): WorkloadCase {
  const reference = `Here is a short answer about ${r.pick(SHOPS)} in ${r.pick(TOWNS)}: ${sentence(r)}`;
  const refTokens = countTokens(reference);
  return {
    case_id: id,
    class: cls,
    priority: CLASS_DEFAULTS.classes[cls]!.priority,
    messages: parts.messages,
    input_tokens: countMessageTokens(parts.messages),
    prompt_sha256: promptSha256(parts.messages),
    max_output_tokens: parts.maxOutput,
    // About 70 tokens for a chat turn, 90 for a summary: what the simulator answers when it stands in for the engine.
    expected_output_tokens: Math.max(refTokens, cls === "chat" ? r.int(50, 90) : r.int(70, 110)),
    reference_output: reference,
    expected_output_schema: null,
    safety_case: false,
    canary: null,
    tool_calls_expected: [],
    tools: [],
    tool_responses: [],
    permitted_tools: [],
    retrieval: null,
    quality_check: { kind: "not_applicable", reason: NO_QUALITY },
    input_size: parts.size,
    output_size: "typical",
    tags: parts.tags,
  };
}

/** The short chat turns: a note of 6–22 sentences and one question about it. */
function shortCases(r: Rng): WorkloadCase[] {
  return Array.from({ length: SHORT_CASES }, (_, i) => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a helpful assistant for small local businesses. Answer briefly." },
      { role: "user", content: `${text(r, r.int(6, 22))}\n\n${r.pick(QUESTIONS)}` },
    ];
    return chatCase(`chat-${String(i + 1).padStart(2, "0")}`, "chat", r, {
      messages,
      maxOutput: 160,
      tags: ["short-chat"],
      size: "typical",
    });
  });
}

/** The long-context turns: a report of 100–300 sentences to summarise. */
function longCases(r: Rng): WorkloadCase[] {
  return Array.from({ length: LONG_CASES }, (_, i) => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a helpful assistant for small local businesses. Answer briefly." },
      {
        role: "user",
        content: `Below are this month's notes from every branch.\n\n${
          text(r, r.int(100, 300))
        }\n\nSummarise the notes above in three sentences.`,
      },
    ];
    return chatCase(`long-${String(i + 1).padStart(2, "0")}`, "long_context", r, {
      messages,
      maxOutput: 192,
      tags: ["long-context"],
      size: "long",
    });
  });
}

/** The engine-validation workload and its class defaults, derived deterministically. */
export function buildEngineWorkload(): { workload: Workload; classDefaults: ClassDefaultsFile } {
  const r = makeRng(SEED);
  const workload: Workload = {
    workload: NAME,
    version: "1.0.0",
    kind: "design",
    description: "Short chat turns (48 cases, tagged short-chat) and a few long documents to summarise (6 cases, " +
      "tagged long-context) for testing a real inference engine serving a model with random weights: every case is " +
      "judged for latency and validity only (quality_check not_applicable; no schema, safety role, canary or tools). " +
      "All text is synthetic.",
    does_not_represent: [
      "answer quality: no case has a right answer (the engine's model has random weights), so quality_ok never applies",
      "production traffic: no case was sampled from real users or logs",
      "a measured token or class mix: sizes and the mix were chosen by design",
      "structured output, tool calls, retrieval and safety refusals (design-v1 has them)",
      "languages other than English",
      "chat-template tokens: input_tokens counts message contents only (o200k_base), not the engine's own tokenizer",
    ],
    tokenizer: "o200k_base",
    cases: [...shortCases(r), ...longCases(r)],
  };
  return { workload, classDefaults: CLASS_DEFAULTS };
}
