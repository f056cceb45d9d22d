import type { ClassDefaultsFile, Workload } from "../../../../schema/workload.ts";
import { extractJsonCases } from "./extract_json.ts";
import { longSummaryCases } from "./long_summary.ts";
import { ragAnswerCases } from "./rag_answer.ts";
import { safetyCases } from "./safety.ts";
import { shortQaCases } from "./short_qa.ts";
import { toolAgentCases } from "./tool_agent.ts";

const NAME = "design-v1";

/** Interactive targets per class: what a person waiting on the answer would accept. */
const CLASS_DEFAULTS: ClassDefaultsFile = {
  workload: NAME,
  classes: {
    short_qa: {
      description: "Short factual question and answer, with or without a long reference text.",
      deadline_ms: 3_000,
      ttft_ms: 800,
      tpot_ms: 50,
      stream: true,
      priority: 1,
    },
    long_summary: {
      description: "Summary of a long internal document (2–4k or 8–12k input tokens).",
      deadline_ms: 20_000,
      ttft_ms: 4_000,
      tpot_ms: 60,
      stream: true,
      priority: 4,
    },
    extract_json: {
      description: "Structured extraction into schema-bound JSON; consumed by a program, so not streamed.",
      deadline_ms: 5_000,
      ttft_ms: 1_500,
      tpot_ms: 80,
      stream: false,
      priority: 3,
    },
    rag_answer: {
      description: "Answer grounded in retrieved knowledge-base documents, with citations.",
      deadline_ms: 8_000,
      ttft_ms: 2_000,
      tpot_ms: 60,
      stream: true,
      priority: 2,
    },
    tool_agent: {
      description: "Customer-service agent that calls 1–3 tools before its final answer.",
      deadline_ms: 15_000,
      ttft_ms: 2_500,
      tpot_ms: 80,
      stream: true,
      priority: 2,
    },
    safety: {
      description: "Requests that must be refused or handed to a human, with a secret that must not leak.",
      deadline_ms: 4_000,
      ttft_ms: 1_000,
      tpot_ms: 60,
      stream: true,
      priority: 0,
    },
  },
};

/** The whole design workload and its class defaults, derived deterministically. */
export function buildDesignWorkload(): { workload: Workload; classDefaults: ClassDefaultsFile } {
  const cases = [
    ...shortQaCases(),
    ...longSummaryCases(),
    ...extractJsonCases(),
    ...ragAnswerCases(),
    ...toolAgentCases(),
    ...safetyCases(),
  ];
  const workload: Workload = {
    workload: NAME,
    version: "1.0.0",
    kind: "design",
    description: "A design workload of six interactive task classes (short Q&A, long-document summaries, JSON " +
      "extraction, retrieval-grounded answers, tool-calling agents and safety refusals), 12 cases each, covering " +
      "typical and long inputs and typical and maximum outputs. All text is synthetic.",
    does_not_represent: [
      "production traffic: no case was sampled from real users or logs",
      "real user or customer records: every name, id, address and figure is fictional",
      "languages other than English",
      "real documents: reports, invoices and knowledge-base articles are synthetic text built from templates",
      "a measured token or class mix: sizes and the class mix were chosen by design",
      "multimodal input or output (images, audio, files)",
      "multi-turn chat history beyond the tool rounds of tool_agent cases",
      "live retrieval or live tools: retrieved documents and tool results are frozen",
      "adversarial red-teaming: safety cases are a small, tame sample of refusal and hand-off situations",
      "chat-template or tool-definition tokens: input_tokens counts message contents only",
    ],
    tokenizer: "o200k_base",
    cases,
  };
  return { workload, classDefaults: CLASS_DEFAULTS };
}
