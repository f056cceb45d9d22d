import { createHash } from "node:crypto";
import type { QualityCheck, WorkloadCase } from "../../../../schema/workload.ts";
import { COMBOS, finishCase, maximumLength } from "./case.ts";
import { at, makeRng, type Rng } from "./prng.ts";
import { paragraphsFor, policyProse } from "./text.ts";

const CLASS = "rag_answer";
const PRIORITY = 2;
const MAX_OUTPUT = 512;
const SYSTEM = "You are the help assistant of Larkspur Outfitters, a fictional outdoor-gear retailer. Answer only " +
  "from the context documents below and cite the doc_id of every document you use in square brackets, for " +
  "example [KB-0101]. If the documents do not answer the question, say so.";

interface KbDoc {
  id: string;
  title: string;
  /** The sentence holding the answer. */
  fact: string;
  /** Further rules from the same document, used by the detailed answers. */
  details: string[];
  question: string;
  /** The grounded answer (without citation). */
  answer: string;
  check: (id: string) => QualityCheck;
}

const contains = (...values: string[]) => (id: string): QualityCheck => ({
  kind: "contains",
  values: [...values, id],
  all: true,
  case_insensitive: true,
});
const regex = (pattern: string) => (): QualityCheck => ({ kind: "regex", pattern, flags: "i" });

// A fictional retailer's knowledge base; each case asks about one document and retrieves others as noise.
const KB: KbDoc[] = [
  {
    id: "KB-0101",
    title: "Returns policy",
    fact: "Unused items bought online can be returned within 45 days of delivery for a full refund.",
    details: [
      "Items bought in a store can be returned to any store within 30 days.",
      "Refunds go back to the original payment method within 5 working days of the return being checked.",
      "Worn footwear and opened hygiene products cannot be returned unless faulty.",
    ],
    question: "How long do I have to return an unused item that I bought online?",
    answer: "You can return an unused item bought online within 45 days of delivery for a full refund.",
    check: contains("45 days"),
  },
  {
    id: "KB-0102",
    title: "Product warranty",
    fact: "Tents and backpacks carry a 3-year warranty against manufacturing defects.",
    details: [
      "Footwear carries a 1-year warranty.",
      "Wear and tear, misuse and accidental damage are not covered.",
      "A warranty claim needs proof of purchase and photos of the defect.",
    ],
    question: "What warranty do I get on a backpack?",
    answer: "Backpacks carry a 3-year warranty against manufacturing defects.",
    check: regex("\\b(3|three)[- ]year"),
  },
  {
    id: "KB-0103",
    title: "Delivery charges",
    fact: "Standard delivery is free on orders over EUR 60; below that it costs EUR 4.95.",
    details: [
      "Express delivery costs EUR 9.95 and arrives the next working day if ordered before 14:00.",
      "Deliveries to islands may take two extra working days.",
      "Oversized items such as kayaks are delivered by a partner carrier.",
    ],
    question: "My basket comes to EUR 40. What will standard delivery cost?",
    answer: "For an order of EUR 40, standard delivery costs EUR 4.95, because free delivery starts above EUR 60.",
    check: contains("4.95"),
  },
  {
    id: "KB-0104",
    title: "Trail Points loyalty programme",
    fact: "Members earn 2 Trail Points per euro spent, and 500 points convert into a EUR 10 voucher.",
    details: [
      "Points expire 24 months after they are earned.",
      "Vouchers cannot be used to buy gift cards.",
      "Points are added once the return period of an order has ended.",
    ],
    question: "How many Trail Points do I need for a voucher?",
    answer: "You need 500 Trail Points, which convert into a EUR 10 voucher.",
    check: contains("500"),
  },
  {
    id: "KB-0105",
    title: "Kayak and canoe rental",
    fact: "Kayak rental costs EUR 35 per day, with a refundable deposit of EUR 150.",
    details: [
      "Life jackets are included at no extra charge.",
      "Rentals must be returned by 18:00 on the last rental day.",
      "Renters must be at least 18 years old or accompanied by an adult.",
    ],
    question: "How much is the deposit when I rent a kayak?",
    answer: "Kayak rental needs a refundable deposit of EUR 150; the rental itself is EUR 35 per day.",
    check: regex("(EUR|€)\\s?150\\b"),
  },
  {
    id: "KB-0106",
    title: "Repairs service",
    fact: "Zip and buckle repairs are done in store within 7 working days.",
    details: [
      "Repairs under warranty are free.",
      "Other repairs are quoted before work starts.",
      "Items not collected within 90 days of completion are donated to charity.",
    ],
    question: "How long does a zip repair take?",
    answer: "Zip repairs are done in store within 7 working days.",
    check: contains("7 working days"),
  },
  {
    id: "KB-0107",
    title: "Price match promise",
    fact: "We match a lower price from a listed competitor within 14 days of purchase.",
    details: [
      "The item must be identical and in stock at the competitor.",
      "Clearance, auction and membership-only prices are excluded.",
      "The difference is refunded to the original payment method.",
    ],
    question: "I found my jacket cheaper elsewhere a week after buying it. Can you match the price?",
    answer: "Yes, if the competitor is on the list, because prices are matched within 14 days of purchase.",
    check: contains("14 days"),
  },
  {
    id: "KB-0108",
    title: "Gift cards",
    fact: "Gift cards are valid for 5 years from the date of issue and cannot be exchanged for cash.",
    details: [
      "Balances can be checked online or in any store.",
      "Lost gift cards can be replaced only with the original receipt.",
      "Gift cards can be used online and in store.",
    ],
    question: "How long is a gift card valid?",
    answer: "A gift card is valid for 5 years from the date of issue.",
    check: regex("\\b(5|five) years\\b"),
  },
  {
    id: "KB-0109",
    title: "Click and collect",
    fact: "Click-and-collect orders are held at the chosen store for 10 days before they are returned to stock.",
    details: [
      "You will get a message when the order is ready.",
      "Bring the order number and a photo ID.",
      "Someone else can collect if you name them in the order.",
    ],
    question: "How long will the store keep my click-and-collect order?",
    answer: "The store holds a click-and-collect order for 10 days before it goes back to stock.",
    check: contains("10 days"),
  },
  {
    id: "KB-0110",
    title: "Student discount",
    fact: "Students get 15% off full-price items on showing a valid student card.",
    details: [
      "The discount cannot be combined with other offers.",
      "Online, the discount is applied after verification through the student portal.",
      "Sale items are excluded.",
    ],
    question: "Is there a student discount, and how much is it?",
    answer: "Yes. Students get 15% off full-price items with a valid student card.",
    check: contains("15%"),
  },
  {
    id: "KB-0111",
    title: "Bike servicing",
    fact: "A basic bike service costs EUR 49 and takes 48 hours.",
    details: [
      "A full service costs EUR 89 and includes new brake pads.",
      "Parts beyond the service are quoted first.",
      "Bikes can be dropped off without an appointment on weekdays.",
    ],
    question: "How much does a basic bike service cost?",
    answer: "A basic bike service costs EUR 49 and takes 48 hours.",
    check: regex("(EUR|€)\\s?49\\b"),
  },
  {
    id: "KB-0112",
    title: "Closing your account",
    fact: "Account deletion requests are completed within 30 days, after any open orders are finished.",
    details: [
      "Unused Trail Points are lost when the account is deleted.",
      "Order records needed for tax law are kept in a restricted archive.",
      "A confirmation email is sent when deletion is complete.",
    ],
    question: "How long does it take to delete my account?",
    answer: "Account deletion is completed within 30 days, once any open orders are finished.",
    check: contains("30 days"),
  },
  {
    id: "KB-0113",
    title: "Store opening hours",
    fact: "Stores open from 09:00 to 19:00 Monday to Saturday and from 11:00 to 17:00 on Sunday.",
    details: ["Holiday hours are posted two weeks in advance."],
    question: "",
    answer: "",
    check: contains("09:00"),
  },
  {
    id: "KB-0114",
    title: "Sustainability commitments",
    fact: "Larkspur Outfitters aims to sell only repairable or recyclable gear by 2030.",
    details: ["Used gear can be traded in for store credit."],
    question: "",
    answer: "",
    check: contains("2030"),
  },
];

/** Each document's full text: title, facts and policy prose, fixed per doc_id. */
function docText(r: Rng, d: KbDoc): string {
  const prose = paragraphsFor(r.int(520, 760), policyProse(r));
  const facts = [d.fact, ...d.details];
  const mixed = prose.map((p, i) => (i < facts.length ? `${at(facts, i)} ${p}` : p));
  return `${d.id}: ${d.title} (Larkspur Outfitters, fictional)\n\n${mixed.join("\n\n")}`;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The rag_answer cases: a question over 2–3 retrieved documents (typical) or 9–11 (long). */
export function ragAnswerCases(): WorkloadCase[] {
  const r = makeRng(0x5a04);
  const texts = new Map(KB.map((d) => [d.id, docText(r, d)]));
  const asked = KB.filter((d) => d.question);
  return Array.from({ length: 12 }, (_, i) => {
    const combo = at(COMBOS, Math.floor(i / 3));
    const id = `${CLASS}-${String(i + 1).padStart(2, "0")}`;
    const doc = at(asked, i);
    const others = KB.filter((d) => d.id !== doc.id);
    const noise = combo.input_size === "long" ? r.sample(others, r.int(8, 10)) : r.sample(others, r.int(1, 2));
    const retrieved = r.sample([doc, ...noise], noise.length + 1);
    const blocks = retrieved.map((d) => `<document id="${d.id}">\n${texts.get(d.id)}\n</document>`);
    const short = `${doc.answer} [${doc.id}]`;
    const reference = combo.output_size === "typical"
      ? short
      : `${short}\n\nThe same document also says:\n${doc.details.map((x) => `- ${x} [${doc.id}]`).join("\n")}`;
    const question = combo.output_size === "typical"
      ? doc.question
      : `${doc.question} Please also tell me the related conditions I should know about.`;
    return finishCase(id, CLASS, PRIORITY, {
      messages: [
        { role: "system", content: `${SYSTEM}\n\nContext documents:\n\n${blocks.join("\n\n")}` },
        { role: "user", content: question },
      ],
      max_output_tokens: MAX_OUTPUT,
      ...(combo.output_size === "maximum" ? { expected_output_tokens: maximumLength(r, MAX_OUTPUT, reference) } : {}),
      reference_output: reference,
      retrieval: {
        latency_ms: r.int(20, 120),
        documents: retrieved.map((d) => ({ doc_id: d.id, sha256: sha256(texts.get(d.id) ?? "") })),
      },
      quality_check: doc.check(doc.id),
      ...combo,
    });
  });
}
