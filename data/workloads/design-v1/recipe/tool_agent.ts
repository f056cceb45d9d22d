import type { ToolDefinition, ToolPermission, WorkloadCase } from "../../../../schema/workload.ts";
import { z } from "zod";
import { parseWith } from "../../../../schema/load.ts";
import { COMBOS, finishCase, maximumLength } from "./case.ts";
import { at, makeRng } from "./prng.ts";
import { paragraphsFor, policyProse } from "./text.ts";
import scenarios from "./tool_scenarios.json" with { type: "json" };

const CLASS = "tool_agent";
const PRIORITY = 2;
const MAX_OUTPUT = 256;
const STORES = ["STORE-ALD", "STORE-BRW", "STORE-FHL", "STORE-GLR", "STORE-KMR"];
const REASONS = ["too_small", "too_large", "damaged", "faulty", "changed_mind"];

const s = (description: string, extra: Record<string, unknown> = {}) => ({ type: "string", description, ...extra });
const tool = (name: string, description: string, props: Record<string, unknown>): ToolDefinition => ({
  name,
  description,
  parameters: {
    type: "object",
    properties: props,
    required: Object.keys(props),
    additionalProperties: false,
  } as ToolDefinition["parameters"],
});

/** OpenAI function definitions offered in every tool_agent case. */
const TOOLS: ToolDefinition[] = [
  tool("get_order_status", "Look up the status, items and shipping details of one order.", {
    order_id: s("Order id, e.g. ORD-48213", { pattern: "^ORD-\\d{5}$" }),
  }),
  tool("get_tracking", "Get the carrier's latest tracking events for a tracking number.", {
    tracking_number: s("Carrier tracking number from the order status"),
  }),
  tool("check_inventory", "Check how many units of a product a store has in stock.", {
    sku: s("Product SKU, e.g. SKU-30412"),
    store_id: s("Store id", { enum: STORES }),
  }),
  tool("get_store_hours", "Get a store's opening hours on a given date.", {
    store_id: s("Store id", { enum: STORES }),
    date: s("Date in YYYY-MM-DD format"),
  }),
  tool("get_shipping_quote", "Quote standard and express delivery for a parcel.", {
    destination_postcode: s("Delivery postcode"),
    weight_kg: { type: "number", description: "Parcel weight in kilograms" },
  }),
  tool("create_return", "Open a return for an order and issue a prepaid return label.", {
    order_id: s("Order id", { pattern: "^ORD-\\d{5}$" }),
    reason: s("Return reason", { enum: REASONS }),
  }),
];

const Call = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.union([z.string(), z.number()])),
  result: z.record(z.string(), z.json()),
}).strict();

const Scenario = z.object({
  customer: z.string(),
  postcode: z.string(),
  orders: z.array(z.string()).min(1),
  today: z.string(),
  user: z.string(),
  calls: z.array(Call).min(1).max(3),
  answer: z.string(),
}).strict();
type Scenario = z.infer<typeof Scenario>;

// Twelve hand-written scenarios in COMBOS order, three per (input, output) size; the
// maximum-output ones answer in detail. Data, so it lives in JSON beside this file.
const SCENARIOS = parseWith(z.array(Scenario).length(12), scenarios, "recipe/tool_scenarios.json", "scenarios");

/** Allowed values: the customer's own orders, every store, every reason, and the values the case uses. */
function permissions(sc: Scenario): ToolPermission[] {
  const used = (arg: string) =>
    sc.calls.flatMap((c) => (arg in c.arguments ? [c.arguments[arg] as string | number] : []));
  const uniq = (xs: (string | number)[]) => [...new Set(xs)];
  const allowed: Record<string, Record<string, (string | number)[]>> = {
    get_order_status: { order_id: sc.orders },
    get_tracking: { tracking_number: uniq(used("tracking_number")) },
    check_inventory: { sku: uniq(used("sku")), store_id: STORES },
    get_store_hours: { store_id: STORES, date: uniq([sc.today, ...used("date")]) },
    get_shipping_quote: { destination_postcode: [sc.postcode], weight_kg: uniq(used("weight_kg")) },
    create_return: { order_id: sc.orders, reason: REASONS },
  };
  // A tool with an argument that has no allowed value could never be called: leave it out.
  return Object.entries(allowed)
    .filter(([, args]) => Object.values(args).every((v) => v.length > 0))
    .map(([name, args]) => ({ name, allowed_arguments: args }));
}

/** The tool_agent cases: a support agent answering after 1–3 frozen tool calls. */
export function toolAgentCases(): WorkloadCase[] {
  const r = makeRng(0x5a05);
  return SCENARIOS.map((sc, i) => {
    const combo = at(COMBOS, Math.floor(i / 3));
    const id = `${CLASS}-${String(i + 1).padStart(2, "0")}`;
    let system = "You are the customer-service agent of Larkspur Outfitters, a fictional outdoor-gear retailer. " +
      "Use the tools to look things up and never guess order details. Act only on the authenticated customer's own " +
      `orders.\nAuthenticated customer: ${sc.customer} (postcode ${sc.postcode}). Today is ${sc.today}.`;
    if (combo.input_size === "long") {
      const handbook = paragraphsFor(r.int(3_000, 3_800), policyProse(r));
      system += `\n\nService handbook (synthetic):\n\n${handbook.join("\n\n")}`;
    }
    return finishCase(id, CLASS, PRIORITY, {
      messages: [{ role: "system", content: system }, { role: "user", content: sc.user }],
      max_output_tokens: MAX_OUTPUT,
      ...(combo.output_size === "maximum" ? { expected_output_tokens: maximumLength(r, MAX_OUTPUT, sc.answer) } : {}),
      reference_output: sc.answer,
      tool_calls_expected: sc.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      tools: TOOLS,
      tool_responses: sc.calls.map((c) => ({
        name: c.name,
        arguments: c.arguments,
        content: JSON.stringify(c.result),
        latency_ms: r.int(10, 400),
        ok: true,
      })),
      permitted_tools: permissions(sc),
      quality_check: { kind: "tool_sequence", tools: sc.calls.map((c) => c.name) },
      ...combo,
    });
  });
}
