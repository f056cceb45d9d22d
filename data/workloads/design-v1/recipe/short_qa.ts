import type { QualityCheck, WorkloadCase } from "../../../../schema/workload.ts";
import { COMBOS, finishCase, maximumLength } from "./case.ts";
import { at, makeRng, type Rng } from "./prng.ts";
import { countTokens } from "./tokens.ts";
import { opsProse, paragraphsFor, SITES } from "./text.ts";

const CLASS = "short_qa";
const PRIORITY = 1;
const MAX_OUTPUT = 128;
const SYSTEM = "You are a concise assistant on a general-knowledge help desk. Answer factual questions accurately " +
  "and briefly. If the question asks for only a value, reply with only that value.";
const SYSTEM_HANDBOOK = "You are a concise assistant for site staff. Answer the question using only the site " +
  "handbook below. If the handbook does not contain the answer, say so.";

interface GeneralQuestion {
  question: string;
  answer: string;
  /** A longer, explained answer for the maximum-output cases. */
  explained: string;
  check: QualityCheck;
}

// Common-knowledge questions with one unambiguous answer.
const GENERAL: GeneralQuestion[] = [
  {
    question: "Answer with only the year: in which year did the Apollo 11 crew first land on the Moon?",
    answer: "1969",
    explained: "",
    check: { kind: "exact", value: "1969", normalize: true },
  },
  {
    question: "What is the capital city of Australia?",
    answer: "The capital city of Australia is Canberra.",
    explained: "",
    check: { kind: "contains", values: ["Canberra"], all: true, case_insensitive: true },
  },
  {
    question: "What is the chemical symbol for gold?",
    answer: "The chemical symbol for gold is Au.",
    explained: "",
    check: { kind: "regex", pattern: "\\bAu\\b", flags: "" },
  },
  {
    question: "Which planet in our solar system is the largest? Explain briefly how it compares with Earth.",
    answer: "",
    explained: "Jupiter is the largest planet in our solar system. Its diameter is about eleven times that of " +
      "Earth, and its mass is more than three hundred times Earth's, greater than all the other planets combined. " +
      "It is a gas giant made mostly of hydrogen and helium, so it has no solid surface like Earth's.",
    check: { kind: "contains", values: ["Jupiter"], all: true, case_insensitive: true },
  },
  {
    question: "Who wrote the novel Pride and Prejudice? Give a short explanation of when it appeared.",
    answer: "",
    explained: "Pride and Prejudice was written by Jane Austen. It was first published in 1813, after an " +
      "earlier draft titled First Impressions, and it appeared anonymously, credited only to the author of " +
      "Sense and Sensibility. It remains one of the most widely read novels in English.",
    check: { kind: "contains", values: ["Jane Austen"], all: true, case_insensitive: true },
  },
  {
    question: "Which gas do plants mainly take in from the air for photosynthesis? Explain the process briefly.",
    answer: "",
    explained: "Plants mainly take in carbon dioxide from the air for photosynthesis. It enters the leaves " +
      "through small pores called stomata. Using energy from sunlight, chlorophyll helps the plant combine " +
      "carbon dioxide with water to make glucose, and oxygen is released as a by-product.",
    check: { kind: "contains", values: ["carbon dioxide"], all: true, case_insensitive: true },
  },
];

interface HandbookFact {
  make: (r: Rng) => string;
  sentence: (site: string, v: string) => string;
  question: (site: string) => string;
  answer: (site: string, v: string) => string;
  /** Why the fact matters, for the explained answers. */
  context: string;
}

// Each synthetic handbook carries all six facts (with its own values); a case asks about one of them.
const FACTS: HandbookFact[] = [
  {
    make: (r) => `${r.int(36, 96)} hours`,
    sentence: (s, v) => `The backup generators at ${s} can run for ${v} at full load before they need refuelling.`,
    question: (s) => `How long can the backup generators at ${s} run at full load?`,
    answer: (s, v) => `According to the handbook, the backup generators at ${s} can run for ${v} at full load.`,
    context: "Refuelling must be arranged before that limit, and the generators are tested under load every month.",
  },
  {
    make: (r) => `${r.int(8, 24)} visitors`,
    sentence: (s, v) => `For safety reasons, guided tours of ${s} are limited to ${v} at a time.`,
    question: (s) => `What is the largest group of visitors allowed on a guided tour of ${s}?`,
    answer: (s, v) => `Guided tours of ${s} are limited to ${v} at a time.`,
    context: "The limit keeps groups small enough for one guide to supervise, and visitors must sign in first.",
  },
  {
    make: (r) => `Bay ${r.int(2, 14)}`,
    sentence: (s, v) =>
      `All hazardous-goods deliveries at ${s} are received at ${v}, which has a spill kit and drainage cover.`,
    question: (s) => `Which loading bay receives hazardous-goods deliveries at ${s}?`,
    answer: (s, v) => `Hazardous-goods deliveries at ${s} are received at ${v}.`,
    context: "That bay has a spill kit and a drainage cover, so other bays must not be used for such deliveries.",
  },
  {
    make: (r) => `extension ${r.int(2000, 8999)}`,
    sentence: (s, v) => `Out of hours, staff at ${s} reach the on-call supervisor on ${v}.`,
    question: (s) => `Which phone extension reaches the on-call supervisor at ${s} out of hours?`,
    answer: (s, v) => `Out of hours, the on-call supervisor at ${s} is reached on ${v}.`,
    context: "The supervisor decides whether an issue can wait until the morning shift or needs a call-out.",
  },
  {
    make: (r) => `${r.int(14, 60)} days`,
    sentence: (s, v) => `CCTV recordings at ${s} are kept for ${v} and then deleted automatically.`,
    question: (s) => `For how many days are CCTV recordings kept at ${s}?`,
    answer: (s, v) => `CCTV recordings at ${s} are kept for ${v} before automatic deletion.`,
    context: "Recordings needed for an investigation must be exported before that period ends.",
  },
  {
    make: (r) => `${r.int(2, 6)} degrees Celsius`,
    sentence: (s, v) => `The chilled store at ${s} must stay at or below ${v}; alarms trigger above that level.`,
    question: (s) => `At or below what temperature must the chilled store at ${s} be kept?`,
    answer: (s, v) => `The chilled store at ${s} must be kept at or below ${v}.`,
    context: "An alarm triggers above that level, and stock exposed for too long is quarantined for review.",
  },
];

function handbook(r: Rng, site: string, values: string[]): string {
  const paragraphs = paragraphsFor(r.int(1500, 2300), opsProse(r, site));
  FACTS.forEach((f, i) => {
    const slot = Math.floor(((i + 0.5) / FACTS.length) * paragraphs.length);
    paragraphs[slot] = `${f.sentence(site, at(values, i))} ${at(paragraphs, slot)}`;
  });
  return `SITE HANDBOOK: ${site} Distribution Centre (fictional site; synthetic text for the design-v1 workload)\n\n` +
    paragraphs.join("\n\n");
}

/** The short_qa cases: six common-knowledge questions and six questions over a long site handbook. */
export function shortQaCases(): WorkloadCase[] {
  const r = makeRng(0x5a01);
  const sites = r.sample(SITES, 6);
  return Array.from({ length: 12 }, (_, i) => {
    const combo = at(COMBOS, Math.floor(i / 3));
    const id = `${CLASS}-${String(i + 1).padStart(2, "0")}`;
    if (combo.input_size === "typical") {
      const q = at(GENERAL, i);
      const reference = q.explained || q.answer;
      return finishCase(id, CLASS, PRIORITY, {
        messages: [{ role: "system", content: SYSTEM }, { role: "user", content: q.question }],
        max_output_tokens: MAX_OUTPUT,
        ...(combo.output_size === "maximum" ? { expected_output_tokens: maximumLength(r, MAX_OUTPUT, reference) } : {}),
        reference_output: reference,
        quality_check: q.check,
        ...combo,
      });
    }
    const k = i - 6;
    const site = at(sites, k);
    const values = FACTS.map((f) => f.make(r));
    const fact = at(FACTS, k);
    const value = at(values, k);
    const short = fact.answer(site, value);
    const reference = combo.output_size === "maximum" ? `${short} ${fact.context}` : short;
    const question = combo.output_size === "maximum"
      ? `${fact.question(site)} Please explain what the handbook says around it.`
      : fact.question(site);
    if (countTokens(reference) >= MAX_OUTPUT) throw new RangeError(`${id}: reference too long`);
    return finishCase(id, CLASS, PRIORITY, {
      messages: [
        { role: "system", content: `${SYSTEM_HANDBOOK}\n\n${handbook(r, site, values)}` },
        { role: "user", content: question },
      ],
      max_output_tokens: MAX_OUTPUT,
      ...(combo.output_size === "maximum" ? { expected_output_tokens: maximumLength(r, MAX_OUTPUT, reference) } : {}),
      reference_output: reference,
      quality_check: { kind: "contains", values: [value], all: true, case_insensitive: true },
      ...combo,
    });
  });
}
