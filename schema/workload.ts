import { z } from "zod";

/** How a case's answer is judged (`quality_ok`). */
export const QualityCheck = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("exact"),
    value: z.string(),
    /** Trim and collapse whitespace, compare case-insensitively. @default true */
    normalize: z.boolean().default(true),
  }).strict(),
  z.object({
    kind: z.literal("contains"),
    values: z.array(z.string()).min(1),
    /** Every value must appear (true) or any one of them (false). @default true */
    all: z.boolean().default(true),
    case_insensitive: z.boolean().default(true),
  }).strict(),
  z.object({ kind: z.literal("regex"), pattern: z.string().min(1), flags: z.string().default("i") }).strict(),
  z.object({
    kind: z.literal("json_fields"),
    /** Dotted path → expected JSON value (deep equality). */
    fields: z.record(z.string(), z.json()),
  }).strict(),
  z.object({ kind: z.literal("tool_sequence"), tools: z.array(z.string()).min(1) }).strict(),
  /**
   * No quality check: the case has no answer to judge (e.g. a model with random weights, whose text is noise), so
   * `quality_ok` is not applicable to it — null, and left out of `applicable_gates` — never failed. `reason` says why.
   */
  z.object({ kind: z.literal("not_applicable"), reason: z.string().min(1) }).strict(),
]);
export type QualityCheck = z.infer<typeof QualityCheck>;

export const ChatMessage = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
}).strict();
export type ChatMessage = z.infer<typeof ChatMessage>;

/** An OpenAI-style function tool the model may call. */
export const ToolDefinition = z.object({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.record(z.string(), z.json()),
}).strict();
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** A frozen tool execution: replayed with its recorded latency. */
export const FrozenToolResponse = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.json()),
  content: z.string(),
  latency_ms: z.number().nonnegative(),
  ok: z.boolean().default(true),
}).strict();
export type FrozenToolResponse = z.infer<typeof FrozenToolResponse>;

/** Which tools a case may call, and with which argument values. */
export const ToolPermission = z.object({
  name: z.string().min(1),
  /** Argument name → allowed values; arguments not listed here are refused. */
  allowed_arguments: z.record(z.string(), z.array(z.json())),
}).strict();
export type ToolPermission = z.infer<typeof ToolPermission>;

export const RetrievedDocument = z.object({
  doc_id: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
}).strict();

/** The frozen retrieval step: its documents are already in `messages`. */
export const Retrieval = z.object({
  latency_ms: z.number().nonnegative(),
  documents: z.array(RetrievedDocument).min(1),
}).strict();
export type Retrieval = z.infer<typeof Retrieval>;

export const ExpectedToolCall = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.json()),
}).strict();

/** One frozen task of a workload. */
export const WorkloadCase = z.object({
  case_id: z.string().min(1),
  class: z.string().min(1),
  /** 0 is the most urgent. */
  priority: z.number().int().min(0).max(9),
  /** The first-round prompt exactly as sent (retrieved documents included). */
  messages: z.array(ChatMessage).min(1),
  /** o200k_base tokens of the message contents (no chat-template overhead). */
  input_tokens: z.number().int().positive(),
  /** sha256 of `JSON.stringify(messages)`. */
  prompt_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  max_output_tokens: z.number().int().positive(),
  /** Length of a complete, correct answer (the simulator's target). */
  expected_output_tokens: z.number().int().positive(),
  /** A correct final answer; the simulator answers with it when accurate. */
  reference_output: z.string(),
  /** JSON Schema the output must satisfy (`schema_ok`), or null. */
  expected_output_schema: z.record(z.string(), z.json()).nullable(),
  safety_case: z.boolean(),
  /** A secret planted in the prompt that must never appear in the output. */
  canary: z.string().nullable(),
  tool_calls_expected: z.array(ExpectedToolCall),
  tools: z.array(ToolDefinition),
  tool_responses: z.array(FrozenToolResponse),
  permitted_tools: z.array(ToolPermission),
  retrieval: Retrieval.nullable(),
  quality_check: QualityCheck,
  /** What the case stands for: typical or long input, typical or maximum output. */
  input_size: z.enum(["typical", "long"]),
  output_size: z.enum(["typical", "maximum"]),
  /** Free labels a plan can select cases by (`mix.tags`, `mix.exclude_tags`), e.g. `short-chat`, `long-context`. */
  tags: z.array(z.string().min(1).max(64)).optional(),
}).strict();
export type WorkloadCase = z.infer<typeof WorkloadCase>;

/** Per-class defaults: deadline and latency targets, streaming. */
export const ClassDefaults = z.object({
  description: z.string(),
  deadline_ms: z.number().positive(),
  ttft_ms: z.number().positive(),
  tpot_ms: z.number().positive(),
  stream: z.boolean(),
  priority: z.number().int().min(0).max(9),
}).strict();
export type ClassDefaults = z.infer<typeof ClassDefaults>;

export const ClassDefaultsFile = z.object({
  workload: z.string(),
  classes: z.record(z.string(), ClassDefaults),
}).strict();
export type ClassDefaultsFile = z.infer<typeof ClassDefaultsFile>;

/** A frozen workload: its identity, what it does not represent, its cases. */
export const Workload = z.object({
  workload: z.string().min(1),
  version: z.string().min(1),
  kind: z.enum(["design", "production_sample", "imported"]),
  description: z.string(),
  does_not_represent: z.array(z.string()),
  tokenizer: z.literal("o200k_base"),
  cases: z.array(WorkloadCase).min(1),
}).strict().superRefine((w, ctx) => {
  const seen = new Set<string>();
  w.cases.forEach((c, i) => {
    if (seen.has(c.case_id)) {
      ctx.addIssue({ code: "custom", path: ["cases", i, "case_id"], message: `duplicate case_id ${c.case_id}` });
    }
    seen.add(c.case_id);
    if (c.expected_output_tokens > c.max_output_tokens) {
      ctx.addIssue({
        code: "custom",
        path: ["cases", i, "expected_output_tokens"],
        message: `${c.expected_output_tokens} exceeds max_output_tokens ${c.max_output_tokens}`,
      });
    }
  });
});
export type Workload = z.infer<typeof Workload>;
