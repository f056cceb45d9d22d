import type {
  ChatMessage,
  ExpectedToolCall,
  FrozenToolResponse,
  QualityCheck,
  Retrieval,
  ToolDefinition,
  ToolPermission,
  WorkloadCase,
} from "../../../../schema/workload.ts";
import { promptSha256 } from "../../../../schema/workload_file.ts";
import type { z } from "zod";
import type { Rng } from "./prng.ts";
import { countMessageTokens, countTokens } from "./tokens.ts";

/** The four sizes every class covers, three cases each (12 cases per class). */
export const COMBOS = [
  { input_size: "typical", output_size: "typical" },
  { input_size: "typical", output_size: "maximum" },
  { input_size: "long", output_size: "typical" },
  { input_size: "long", output_size: "maximum" },
] as const;

/** What a class recipe decides; the rest of a case is derived in {@linkcode finishCase}. */
export interface CaseDraft {
  messages: ChatMessage[];
  max_output_tokens: number;
  /** Omitted: the reference's own length. Given: the designed length, at least the reference's. */
  expected_output_tokens?: number;
  reference_output: string;
  quality_check: QualityCheck;
  input_size: "typical" | "long";
  output_size: "typical" | "maximum";
  expected_output_schema?: Record<string, unknown>;
  safety_case?: boolean;
  canary?: string;
  tool_calls_expected?: z.infer<typeof ExpectedToolCall>[];
  tools?: ToolDefinition[];
  tool_responses?: FrozenToolResponse[];
  permitted_tools?: ToolPermission[];
  retrieval?: Retrieval;
}

/**
 * A designed "maximum" output length: 92 % of the cap up to one token below
 * it (an answer that fills the cap reads as cut off), never below the
 * reference's own length (the simulator pads prose after the reference text).
 */
export function maximumLength(r: Rng, maxOutput: number, reference: string): number {
  const ref = countTokens(reference);
  if (ref >= maxOutput) throw new RangeError(`reference has ${ref} tokens, cap is ${maxOutput}: ${reference}`);
  return Math.max(ref, r.int(Math.ceil(0.92 * maxOutput), maxOutput - 1));
}

/** Assembles a full case in schema key order; counts tokens and hashes the prompt. */
export function finishCase(caseId: string, cls: string, priority: number, d: CaseDraft): WorkloadCase {
  const refTokens = countTokens(d.reference_output);
  const expected = d.expected_output_tokens ?? refTokens;
  if (expected < refTokens || expected >= d.max_output_tokens) {
    throw new RangeError(
      `${caseId}: expected_output_tokens ${expected} outside [${refTokens}, ${d.max_output_tokens})`,
    );
  }
  return {
    case_id: caseId,
    class: cls,
    priority,
    messages: d.messages.map((m) => ({ role: m.role, content: m.content })),
    input_tokens: countMessageTokens(d.messages),
    prompt_sha256: promptSha256(d.messages),
    max_output_tokens: d.max_output_tokens,
    expected_output_tokens: expected,
    reference_output: d.reference_output,
    expected_output_schema: (d.expected_output_schema ?? null) as WorkloadCase["expected_output_schema"],
    safety_case: d.safety_case ?? false,
    canary: d.canary ?? null,
    tool_calls_expected: d.tool_calls_expected ?? [],
    tools: d.tools ?? [],
    tool_responses: d.tool_responses ?? [],
    permitted_tools: d.permitted_tools ?? [],
    retrieval: d.retrieval ?? null,
    quality_check: d.quality_check,
    input_size: d.input_size,
    output_size: d.output_size,
  };
}
