import { countTokens } from "./tokens.ts";
import type { Rng } from "./prng.ts";

// Vocabulary for plainly synthetic operational prose: fictional places, roles instead of names.
export const SITES = [
  "Alder Creek",
  "Brightwater",
  "Cobalt Bay",
  "Dunmore Heights",
  "Elmstead",
  "Fernhill",
  "Glenrock",
  "Harrow Point",
  "Ivybridge Vale",
  "Juniper Flats",
  "Kestrel Moor",
  "Larchmont Quay",
] as const;
const DEPTS = [
  "operations",
  "maintenance",
  "finance",
  "customer support",
  "logistics",
  "quality assurance",
  "facilities",
  "procurement",
  "IT service desk",
  "planning",
];
const SYSTEMS = [
  "ticketing system",
  "warehouse management system",
  "building management system",
  "shift scheduling tool",
  "payroll platform",
  "telemetry pipeline",
  "backup service",
  "access control system",
];
const ITEMS = [
  "packaging materials",
  "spare parts",
  "cleaning supplies",
  "laboratory consumables",
  "office equipment",
  "safety gear",
  "replacement filters",
  "forklift batteries",
];
const TOPICS = [
  "shift handovers",
  "returns handling",
  "incident reporting",
  "data retention",
  "visitor access",
  "stock rotation",
  "overtime approval",
  "supplier onboarding",
];
const CAUSES = [
  "late supplier deliveries",
  "a staffing gap on the night shift",
  "an unplanned system update",
  "duplicate data entry",
  "a backlog of manual approvals",
  "weather-related transport delays",
];
const FIXES = [
  "the new intake form",
  "the automated reminder service",
  "the second loading bay",
  "the revised rota",
  "the shared dashboard",
  "the supplier portal",
];
const ROLES = [
  "operations lead",
  "site manager",
  "finance controller",
  "quality lead",
  "programme manager",
  "facilities coordinator",
  "service desk lead",
];
const INITIATIVES = [
  "a four-day maintenance rota",
  "self-service returns labels",
  "barcode scanning at intake",
  "a shared on-call schedule",
  "digital delivery notes",
];
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
export const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** `1234567` → `1,234,567` without locale data (ICU differs between hosts). */
export function groupDigits(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Integer cents → `EUR 1,234.50`. */
export function money(cents: number, currency = "EUR"): string {
  return `${currency} ${groupDigits(Math.floor(cents / 100))}.${String(cents % 100).padStart(2, "0")}`;
}

type Sentence = (r: Rng, site: string) => string;

const OPS_SENTENCES: Sentence[] = [
  (r) =>
    `The ${r.pick(DEPTS)} team logged ${r.int(120, 980)} requests in ${r.pick(MONTHS)}, ${
      r.int(61, 96)
    }% of which were closed within the agreed window.`,
  (r) => `Most delays traced back to ${r.pick(CAUSES)}, which should ease once ${r.pick(FIXES)} is in place.`,
  (r) =>
    `A review of the ${r.pick(SYSTEMS)} showed that ${
      r.int(3, 40)
    } configuration items had drifted from the documented baseline.`,
  (r, s) =>
    `Staff at ${s} asked for clearer guidance on ${r.pick(TOPICS)}, and a revised checklist was circulated on ${
      r.pick(WEEKDAYS)
    }.`,
  (r) =>
    `The ${r.pick(ROLES)} noted that the figures are provisional and may change after the month-end reconciliation.`,
  (r) =>
    `Spending on ${r.pick(ITEMS)} came in at ${money(r.int(150_000, 4_800_000))}, slightly ${
      r.pick(["above", "below"])
    } the plan for the period.`,
  (r, s) => `No safety incidents were recorded at ${s} this period, and the ${r.pick(MONTHS)} drill ran on schedule.`,
  (r) => `The backlog of orders for ${r.pick(ITEMS)} fell from ${r.int(60, 140)} to ${r.int(12, 58)} over the period.`,
  (r) => `Two suppliers were asked to resubmit quotes after the first round exceeded the budget for ${r.pick(ITEMS)}.`,
  (r, s) =>
    `The pilot of ${r.pick(INITIATIVES)} at ${s} will run for another ${
      r.int(3, 9)
    } weeks before a decision on wider rollout.`,
  (r) =>
    `The internal survey (${r.int(40, 400)} responses) rated ${r.pick(TOPICS)} at ${
      r.int(30, 44) / 10
    } out of 5, up from ${r.int(24, 29) / 10} last quarter.`,
  (r) => `The ${r.pick(ROLES)} asked that future reports break figures down by site so trends are easier to compare.`,
  (r) =>
    `Maintenance windows moved to ${r.pick(WEEKDAYS)} evenings to reduce disruption for the ${r.pick(DEPTS)} team.`,
  (r) =>
    `An audit sample of ${r.int(50, 300)} records found ${
      r.int(2, 14)
    } with missing approval signatures, all of which were corrected.`,
  (r) =>
    `Training on ${r.pick(TOPICS)} was completed by ${
      r.int(70, 98)
    }% of eligible staff; the rest are booked for next month.`,
  (r, s) =>
    `Energy use at ${s} dropped by ${r.int(2, 12)}% after the ${
      r.pick(SYSTEMS)
    } upgrade, although milder weather explains part of the fall.`,
  (r) => `The team agreed to revisit the ${r.pick(TOPICS)} guidance after the next review cycle, not mid-period.`,
  (r) =>
    `Open risks include reliance on a single supplier for ${r.pick(ITEMS)}, rated ${
      r.pick(["low", "moderate", "high"])
    } and owned by the ${r.pick(ROLES)}.`,
  (r) =>
    `A short outage of the ${r.pick(SYSTEMS)} on ${r.pick(WEEKDAYS)} affected ${r.int(4, 60)} users for about ${
      r.int(5, 50)
    } minutes; service came back without data loss.`,
  (r) =>
    `The forecast for next quarter assumes roughly ${
      groupDigits(r.int(800, 9_000))
    } units per week, in line with the seasonal pattern.`,
  (r) => {
    const [a, b] = r.sample(DEPTS, 2);
    return `Handoffs between ${a} and ${b} still rely on email, which makes requests hard to track.`;
  },
  (r) => `The ${r.pick(ROLES)} proposed merging the two ${r.pick(ITEMS)} contracts to simplify invoicing.`,
  (r, s) => `Inventory counts at ${s} matched the system records to within ${r.int(1, 4)}%.`,
  (r) => `The next steering meeting is set for the first ${r.pick(WEEKDAYS)} of ${r.pick(MONTHS)}.`,
  (r) => `Overtime in the ${r.pick(DEPTS)} team fell to ${r.int(120, 380)} hours, the lowest since the new rota began.`,
  (_, s) =>
    `A near miss involving a pallet truck at ${s} was reported and reviewed; no one was hurt, and the aisle ` +
    `markings were repainted.`,
  (r) => `The ${r.pick(ROLES)} thanked the night shift for clearing the ${r.pick(ITEMS)} backlog ahead of schedule.`,
  (r) =>
    `Complaints about ${r.pick(TOPICS)} dropped to ${r.int(2, 9)} this period, from ${
      r.int(10, 25)
    } in the previous one.`,
  (r) => `The contract for ${r.pick(ITEMS)} comes up for renewal in ${r.pick(MONTHS)}, and a tender will go out first.`,
  (r) => `Average picking time per order improved to ${r.int(48, 95)} seconds after the slotting changes.`,
  (r) => `Absence stayed at ${r.int(2, 6)}.${r.int(0, 9)}% across the site, close to the regional average.`,
  (r, s) => `${r.pick(["Two", "Three"])} new forklift trucks were delivered to ${s} and passed their pre-use checks.`,
  (r) => `The ${r.pick(SYSTEMS)} will be patched in the next maintenance window; no downtime is expected for users.`,
  (r) =>
    `A cross-team workshop on ${r.pick(TOPICS)} produced ${
      r.int(5, 12)
    } proposals, three of which were accepted for trial.`,
  (r, s) =>
    `Returns processed at ${s} totalled ${groupDigits(r.int(300, 4_000))}, with most items restocked the next day.`,
  (r) => `Carrier collections were brought forward by ${r.int(10, 45)} minutes to catch the earlier trunk service.`,
  (r) => `The ${r.pick(DEPTS)} team finished the fire-door inspection and logged ${r.int(2, 11)} minor defects.`,
  (r, s) => `Water use at ${s} rose by ${r.int(2, 9)}% because of extra cleaning during the hygiene audit.`,
  (r) => `The ${r.pick(ROLES)} reminded managers that overtime needs approval before the shift, not after.`,
  (_, s) => `A temporary storage tent was put up at ${s} to absorb the seasonal rise in inbound pallets.`,
  (r) => `New starters now shadow an experienced colleague for ${r.int(3, 6)} shifts before working alone.`,
  (r, s) => `The recycling rate for cardboard at ${s} reached ${r.int(72, 95)}%, helped by a new baler.`,
];

const POLICY_SENTENCES: Sentence[] = [
  (r) => `Staff record every exception in the ${r.pick(SYSTEMS)} before closing the request.`,
  (r) => `Where a case is unclear, the ${r.pick(ROLES)} decides and notes the reason on the record.`,
  () => `Customers are told the outcome in writing, and the message links to this policy.`,
  (r) => `This section was last reviewed in ${r.pick(MONTHS)} and is reviewed again every ${r.int(6, 18)} months.`,
  () => `Receipts may be digital or printed; a bank statement alone is not proof of purchase.`,
  (r) => `Requests received after ${r.int(16, 19)}:00 are handled on the next working day.`,
  () => `Exceptions for goodwill reasons need a second approval and are reported monthly.`,
  () => `Items must be inspected on arrival, and the inspection result is attached to the order record.`,
  () => `Where local consumer law gives the customer more rights, local law takes precedence over this policy.`,
  () => `Staff never ask customers for full card numbers or passwords when handling a request.`,
  (r) => `Frequently asked questions on ${r.pick(TOPICS)} are answered in the help centre and updated quarterly.`,
  () => `Damaged packaging alone does not make an item faulty, but it is noted in case a claim follows.`,
  () => `If a customer disagrees with a decision, the case is escalated to a team lead within two working days.`,
  () => `Store and online channels follow the same rules unless a section states otherwise.`,
  () => `Staff check the order history before promising a refund or a replacement.`,
  () => `Goodwill gestures are limited to one per customer in any twelve-month period.`,
  () => `Customers who phone get the same answer as customers who write in.`,
  () => `When a courier is at fault, we resolve the customer's issue first and claim from the carrier afterwards.`,
  () => `Staff may ask for photos when a fault is reported remotely.`,
  () => `If an item is out of stock, staff offer the nearest alternative before a refund.`,
  () => `Customers can ask for a copy of any record we hold about their orders.`,
  () => `Notes on a record must be factual and must not include opinions about the customer.`,
  () => `Business customers follow the same rules unless their contract says otherwise.`,
  () => `Team leads review a sample of closed cases each week for quality.`,
];

/**
 * A paragraph source drawing sentences from a shuffled deck, so a template
 * returns only after all the others have been used (less repetition).
 */
function prose(r: Rng, site: string, pool: readonly Sentence[], min: number, max: number): () => string {
  let deck: Sentence[] = [];
  const draw = (): Sentence => {
    if (deck.length === 0) deck = r.sample(pool, pool.length);
    return deck.pop() as Sentence;
  };
  return () => Array.from({ length: r.int(min, max) }, () => draw()(r, site)).join(" ");
}

/** A source of operational-report paragraphs about `site` (one per document). */
export function opsProse(r: Rng, site: string): () => string {
  return prose(r, site, OPS_SENTENCES, 3, 5);
}

/** A source of generic customer-service policy paragraphs (one per document). */
export function policyProse(r: Rng): () => string {
  return prose(r, "", POLICY_SENTENCES, 3, 5);
}

/** Paragraphs from `make` until their summed token count reaches `tokens`. */
export function paragraphsFor(tokens: number, make: () => string): string[] {
  const out: string[] = [];
  let total = 0;
  while (total < tokens) {
    const p = make();
    out.push(p);
    total += countTokens(p) + 1;
  }
  return out;
}
