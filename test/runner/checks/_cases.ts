import { WorkloadCase } from "../../../schema/workload.ts";
import type { CheckInput, ObservedToolCall } from "../../../runner/checks/check.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";

/** A small case validated by the zod `WorkloadCase` (defaults filled in). */
export function makeCase(over: Record<string, unknown> = {}): WorkloadCase {
  return WorkloadCase.parse({
    ...tinyCase({
      case_id: "case-1",
      class: "interactive",
      messages: [{ role: "user", content: "What is the capital of France?" }],
      input_tokens: 8,
      max_output_tokens: 256,
      expected_output_tokens: 16,
      reference_output: "Paris",
      quality_check: { kind: "exact", value: "Paris", normalize: true },
    }),
    ...over,
  });
}

/** A tool call as the runner observes it: arguments parsed from the raw text. */
export function call(name: string, raw: string): ObservedToolCall {
  let args: Record<string, unknown> | undefined;
  try {
    const v = JSON.parse(raw);
    args = typeof v === "object" && v !== null && !Array.isArray(v) ? v : undefined;
  } catch {
    args = undefined; // the runner records unparseable arguments the same way
  }
  return { name, arguments: args, raw_arguments: raw };
}

/** A finished request: a clean `stop` well under the cap unless overridden. */
export function input(c: WorkloadCase, over: Partial<Omit<CheckInput, "case">> = {}): CheckInput {
  return { case: c, text: "Paris", finish_reason: "stop", tool_calls: [], max_tokens: 256, output_tokens: 2, ...over };
}

/** Tool definitions and permissions for an order-lookup case. */
export const ORDER_TOOLS = {
  tools: [
    { name: "get_order", description: "Look up an order", parameters: { type: "object" } },
    { name: "refund", description: "Refund an order", parameters: { type: "object" } },
  ],
  permitted_tools: [
    { name: "get_order", allowed_arguments: { order_id: ["A1", "A2"], fields: [["status", "eta"]] } },
    { name: "refund", allowed_arguments: { order_id: ["A1"], amount: [{ value: 10, currency: "EUR" }] } },
  ],
};

/** A JSON Schema for an invoice answer. */
export const INVOICE_SCHEMA = {
  type: "object",
  required: ["total", "currency", "lines"],
  properties: {
    total: { type: "number", minimum: 0 },
    currency: { type: "string", enum: ["EUR", "USD"] },
    lines: { type: "array", items: { type: "object", required: ["sku"], properties: { sku: { type: "string" } } } },
  },
  additionalProperties: false,
};
