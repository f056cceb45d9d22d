import type { WorkloadCase } from "../../../../schema/workload.ts";
import { COMBOS, finishCase } from "./case.ts";
import { at, makeRng, type Rng } from "./prng.ts";
import { countTokens } from "./tokens.ts";
import { money, opsProse, paragraphsFor, SITES } from "./text.ts";

const CLASS = "extract_json";
const PRIORITY = 3;
const MAX_OUTPUT = 512;
const MIN_MAXIMUM = Math.ceil(0.9 * MAX_OUTPUT);

const str = { type: "string" };
const obj = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const place = obj({ city: str, country: str });

const SCHEMAS = {
  invoice: obj({
    invoice_number: str,
    issue_date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    due_date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    vendor: obj({ name: str, country: str }),
    currency: { type: "string", enum: ["EUR", "GBP", "USD"] },
    line_items: {
      type: "array",
      minItems: 1,
      items: obj({
        sku: str,
        description: str,
        quantity: { type: "integer", minimum: 1 },
        unit_price: { type: "number" },
      }),
    },
    total: { type: "number" },
  }),
  ticket: obj({
    ticket_id: str,
    customer_tier: { type: "string", enum: ["standard", "plus", "business"] },
    product: str,
    category: { type: "string", enum: ["billing", "delivery", "defect", "account", "other"] },
    urgency: { type: "string", enum: ["low", "normal", "high"] },
    order_ids: { type: "array", items: str },
    requested_action: { type: "string", enum: ["refund", "replacement", "callback", "information"] },
    summary: { type: "string", maxLength: 200 },
  }),
  shipment: obj({
    shipment_id: str,
    carrier: str,
    ship_date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    origin: place,
    destination: place,
    packages: {
      type: "array",
      minItems: 1,
      items: obj({ package_id: str, weight_kg: { type: "number" }, contents: str }),
    },
    total_weight_kg: { type: "number" },
  }),
};
type Family = keyof typeof SCHEMAS;

const VENDORS = [
  { name: "Kestrel Moor Fasteners Ltd", country: "United Kingdom", currency: "GBP", prefix: "KMF" },
  { name: "Fernhill Packaging GmbH", country: "Germany", currency: "EUR", prefix: "FPG" },
  { name: "Cobalt Bay Supply Co.", country: "United States", currency: "USD", prefix: "CBS" },
  { name: "Glenrock Laboratory Goods BV", country: "Netherlands", currency: "EUR", prefix: "GLG" },
];
const PRODUCTS = [
  "Stainless hinge, 40 mm",
  "Nylon cable ties, 200 mm, pack of 100",
  "Corrugated box, 400 x 300 x 200 mm",
  "Nitrile gloves, size M, box of 100",
  "Pallet wrap, 500 mm x 300 m",
  "Hex bolt M8 x 40, bag of 50",
  "Thermal labels, 100 x 150 mm, roll of 500",
  "Safety glasses, clear lens",
  "Air filter cartridge F7",
  "Parcel tape, 48 mm x 66 m",
  "Bubble wrap, 750 mm x 50 m",
  "Shelf bin, blue, 300 mm",
  "LED panel light, 600 x 600 mm",
  "Hand sanitiser, 5 litre",
  "Ear defenders, 30 dB",
  "Hi-vis vest, size L",
  "Steel shelf bracket, 250 mm",
  "Cleaning cloths, pack of 50",
  "Absorbent spill pads, pack of 20",
  "Label printer ribbon, 110 mm",
  "AA batteries, pack of 24",
  "Extension cable reel, 25 m",
  "Brass padlock, 40 mm",
  "Floor marking tape, yellow, 50 mm",
];
const CARRIERS = ["Northbound Freight", "Bluepeak Couriers", "Tidewater Logistics"];
const COUNTRIES = ["Ireland", "Portugal", "Denmark", "Austria", "Belgium"];
const TICKETS = [
  {
    product: "Aurora 2 blender",
    category: "defect",
    urgency: "normal",
    action: "replacement",
    orders: 1,
    body: (o: string[]) =>
      `The Aurora 2 blender from order ${o[0]} arrived with a cracked jug. I haven't used it. ` +
      `Could you send a replacement jug, or a new blender if that's easier? No rush, I have an old one for now.`,
    summary: "Blender arrived with a cracked jug; customer wants a replacement.",
  },
  {
    product: "Trailhead membership",
    category: "billing",
    urgency: "high",
    action: "refund",
    orders: 2,
    body: (o: string[]) =>
      `I was charged twice for my Trailhead membership renewal, once on ${o[0]} and again on ${o[1]}. ` +
      `My account is now overdrawn, so please refund the duplicate charge as soon as possible.`,
    summary: "Membership renewal charged twice; customer wants the duplicate refunded urgently.",
  },
  {
    product: "Summit 40 backpack",
    category: "delivery",
    urgency: "high",
    action: "callback",
    orders: 1,
    body: (o: string[]) =>
      `My Summit 40 backpack (order ${o[0]}) was marked delivered three days ago but never arrived. ` +
      `I leave for a trip on Saturday. Please call me back today so we can sort this out.`,
    summary: "Backpack marked delivered but not received; customer needs a callback before a trip.",
  },
];

function isoDate(r: Rng, plusDays = 0): string {
  const base = Date.UTC(2025, r.int(0, 11), r.int(1, 28));
  return new Date(base + plusDays * 86_400_000).toISOString().slice(0, 10);
}

/** The answer object and the document text it is extracted from. */
interface Built {
  answer: Record<string, unknown>;
  doc: string;
}

function invoice(r: Rng, count: (fit: (n: number) => Built) => Built): Built {
  const v = r.pick(VENDORS);
  const number = `INV-2025-${String(r.int(100, 99_999)).padStart(5, "0")}`;
  const issue = isoDate(r);
  const due = new Date(Date.parse(issue) + 30 * 86_400_000).toISOString().slice(0, 10);
  const pool = Array.from({ length: 40 }, () => ({
    sku: `${v.prefix}-${r.int(10_000, 99_999)}`,
    description: r.pick(PRODUCTS),
    quantity: r.int(1, 60),
    cents: r.int(95, 12_900),
  }));
  return count((n) => {
    const lines = pool.slice(0, n);
    const totalCents = lines.reduce((s, l) => s + l.quantity * l.cents, 0);
    const answer = {
      invoice_number: number,
      issue_date: issue,
      due_date: due,
      vendor: { name: v.name, country: v.country },
      currency: v.currency,
      line_items: lines.map((l) => ({
        sku: l.sku,
        description: l.description,
        quantity: l.quantity,
        unit_price: l.cents / 100,
      })),
      total: totalCents / 100,
    };
    const table = lines.map((l, i) =>
      `${i + 1} | ${l.sku} | ${l.description} | ${l.quantity} | ${(l.cents / 100).toFixed(2)}`
    );
    const doc = `SYNTHETIC INVOICE (fictional vendor; generated for the design-v1 workload)\n\n` +
      `Vendor: ${v.name}, ${v.country}\nInvoice number: ${number}\nIssue date: ${issue}\nPayment due: ${due}\n` +
      `Currency: ${v.currency}\n\nLine | SKU | Description | Qty | Unit price\n${table.join("\n")}\n\n` +
      `Total due: ${money(totalCents, v.currency)}\nPlease pay by bank transfer quoting the invoice number.`;
    return { answer, doc };
  });
}

function shipment(r: Rng, count: (fit: (n: number) => Built) => Built): Built {
  const id = `SHP-${r.hex(8).toUpperCase()}`;
  const carrier = r.pick(CARRIERS);
  const places = r.sample(SITES, 2).map((city) => ({ city, country: r.pick(COUNTRIES) }));
  const from = at(places, 0);
  const to = at(places, 1);
  const date = isoDate(r);
  const pool = Array.from({ length: 40 }, () => ({
    package_id: `PKG-${r.int(100_000, 999_999)}`,
    tenths: r.int(5, 480),
    contents: r.pick(PRODUCTS),
  }));
  return count((n) => {
    const pkgs = pool.slice(0, n);
    const total = pkgs.reduce((s, p) => s + p.tenths, 0);
    const answer = {
      shipment_id: id,
      carrier,
      ship_date: date,
      origin: from,
      destination: to,
      packages: pkgs.map((p) => ({ package_id: p.package_id, weight_kg: p.tenths / 10, contents: p.contents })),
      total_weight_kg: total / 10,
    };
    const list = pkgs.map((p) => `- ${p.package_id} | ${(p.tenths / 10).toFixed(1)} kg | ${p.contents}`);
    const doc = `SYNTHETIC SHIPPING MANIFEST (fictional carrier; generated for the design-v1 workload)\n\n` +
      `Shipment: ${id}\nCarrier: ${carrier}\nShip date: ${date}\nFrom: ${from.city}, ${from.country}\n` +
      `To: ${to.city}, ${to.country}\n\nPackages:\n${list.join("\n")}\n\nTotal weight: ${(total / 10).toFixed(1)} kg`;
    return { answer, doc };
  });
}

function ticket(r: Rng, k: number): Built {
  const t = at(TICKETS, k % TICKETS.length);
  const id = `TCK-${r.int(100_000, 999_999)}`;
  const tier = r.pick(["standard", "plus", "business"]);
  const orders = Array.from({ length: t.orders }, () => `ORD-${r.int(10_000, 99_999)}`);
  const answer = {
    ticket_id: id,
    customer_tier: tier,
    product: t.product,
    category: t.category,
    urgency: t.urgency,
    order_ids: orders,
    requested_action: t.action,
    summary: t.summary,
  };
  const doc = `SYNTHETIC SUPPORT TICKET (fictional customer; generated for the design-v1 workload)\n\n` +
    `Ticket: ${id}\nCustomer tier: ${tier}\nChannel: email\n\nMessage:\n${t.body(orders)}`;
  return { answer, doc };
}

const FAMILIES: Family[] = [
  "invoice",
  "ticket",
  "shipment",
  "invoice",
  "shipment",
  "invoice",
  "ticket",
  "invoice",
  "shipment",
  "shipment",
  "invoice",
  "shipment",
];

const FIELDS: Record<Family, string[]> = {
  invoice: ["invoice_number", "vendor.name", "currency", "total"],
  ticket: ["ticket_id", "customer_tier", "category", "urgency", "requested_action"],
  shipment: ["shipment_id", "carrier", "destination.city", "total_weight_kg"],
};

function valueAt(v: unknown, path: string): unknown {
  return path.split(".").reduce((o, k) => (o as Record<string, unknown>)[k], v);
}

/** The extract_json cases: invoices, support tickets and shipping manifests into schema-bound JSON. */
export function extractJsonCases(): WorkloadCase[] {
  const r = makeRng(0x5a03);
  return Array.from({ length: 12 }, (_, i) => {
    const combo = at(COMBOS, Math.floor(i / 3));
    const id = `${CLASS}-${String(i + 1).padStart(2, "0")}`;
    const family = at(FAMILIES, i);
    // Maximum outputs take the most lines that stay under the cap; typical ones take a few.
    const typicalLines = r.int(2, 5);
    const count = (fit: (n: number) => Built): Built => {
      if (combo.output_size === "typical") return fit(typicalLines);
      let best: Built | undefined;
      for (let n = 1; n <= 40; n++) {
        const b = fit(n);
        if (countTokens(JSON.stringify(b.answer)) >= MAX_OUTPUT) break;
        best = b;
      }
      if (!best || countTokens(JSON.stringify(best.answer)) < MIN_MAXIMUM) throw new RangeError(`${id}: no fit`);
      return best;
    };
    const built = family === "invoice" ? invoice(r, count) : family === "shipment" ? shipment(r, count) : ticket(r, i);
    const reference = JSON.stringify(built.answer);
    let user = `Extract the ${family} below into JSON.\n\n${built.doc}`;
    if (combo.input_size === "long") {
      const prose = opsProse(r, r.pick(SITES));
      const before = paragraphsFor(r.int(2_000, 2_800), prose);
      const after = paragraphsFor(r.int(1_500, 2_200), prose);
      user = `The email thread below contains one ${family}. Extract that ${family} into JSON; ignore the rest.\n\n` +
        `--- Email thread (synthetic) ---\n\n${
          before.join("\n\n")
        }\n\n--- Forwarded attachment ---\n\n${built.doc}\n\n` +
        `--- Earlier messages ---\n\n${after.join("\n\n")}`;
    }
    const schema = SCHEMAS[family];
    const system = "You extract structured data from business documents. Reply with one JSON object and nothing " +
      `else. It must match this JSON Schema:\n${JSON.stringify(schema)}`;
    return finishCase(id, CLASS, PRIORITY, {
      messages: [{ role: "system", content: system }, { role: "user", content: user }],
      max_output_tokens: MAX_OUTPUT,
      reference_output: reference,
      expected_output_schema: schema,
      quality_check: {
        kind: "json_fields",
        fields: Object.fromEntries(FIELDS[family].map((p) => [p, valueAt(built.answer, p) as string | number])),
      },
      ...combo,
    });
  });
}
