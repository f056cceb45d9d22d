import type { WorkloadCase } from "../../../../schema/workload.ts";
import { COMBOS, finishCase, maximumLength } from "./case.ts";
import { at, makeRng, type Rng } from "./prng.ts";
import { countTokens } from "./tokens.ts";
import { groupDigits, money, MONTHS, opsProse, paragraphsFor, SITES } from "./text.ts";

const CLASS = "long_summary";
const PRIORITY = 4;
const MAX_OUTPUT = 1024;
/** The detailed summaries stop adding section lines here, leaving room under the cap. */
const DETAILED_BUDGET = 900;
const SYSTEM = "You summarise internal documents for busy readers. Keep every figure exact and do not add " +
  "facts that are not in the document.";
const ASK_TYPICAL = "Summarise the following document in a short paragraph or a few bullet points, keeping the " +
  "key figures and decisions.";
const ASK_DETAILED = "Write a detailed, section-by-section summary of the following document. Keep every key " +
  "figure and decision, and give each section its own line.";

/** A key fact: planted in the document, restated in the summary, checked by `contains`. */
interface Fact {
  value: string;
  doc: string;
  summary: string;
}

interface DocKind {
  title: (r: Rng, site: string) => string;
  facts: (r: Rng, site: string) => Fact[];
  headings: string[];
}

const fact = (value: string, doc: string, summary: string): Fact => ({ value, doc, summary });

const KINDS: DocKind[] = [
  {
    title: (r, s) => `Quarterly operations report, ${s} Distribution Centre, Q${r.int(1, 4)}`,
    facts: (r) => {
      const rate = `${r.int(88, 94)}.${r.int(0, 9)}%`;
      const month = r.pick(MONTHS);
      const cost = money(r.int(180_000_000, 420_000_000));
      const hires = `${r.int(6, 30)} new warehouse operatives`;
      return [
        fact(
          rate,
          `On-time dispatch reached ${rate} for the quarter, against a target of 95%.`,
          `On-time dispatch was ${rate}, below the 95% target.`,
        ),
        fact(
          "second loading bay",
          `The board approved a second loading bay, due to open in ${month}.`,
          `A second loading bay was approved and should open in ${month}.`,
        ),
        fact(cost, `Operating costs for the quarter totalled ${cost}.`, `Operating costs totalled ${cost}.`),
        fact(
          hires,
          `Recruitment added ${hires} ahead of the seasonal peak.`,
          `The site hired ${hires} before the peak.`,
        ),
      ];
    },
    headings: ["Highlights", "Throughput", "Staffing", "Costs", "Safety", "Suppliers", "Systems", "Outlook"],
  },
  {
    title: (r, s) =>
      `Post-incident review: ${r.pick(["order routing", "label printing", "payments gateway"])} outage at ${s}`,
    facts: (r) => {
      const minutes = `${r.int(60, 220)} minutes`;
      const cause = r.pick(["an expired TLS certificate", "a full database disk", "a misconfigured firewall rule"]);
      const orders = `${groupDigits(r.int(1_200, 9_800))} orders`;
      return [
        fact(
          minutes,
          `The outage lasted ${minutes} from the first alert to full recovery.`,
          `The outage lasted ${minutes}.`,
        ),
        fact(cause, `The root cause was ${cause}, which monitoring did not cover.`, `The root cause was ${cause}.`),
        fact(
          orders,
          `About ${orders} were delayed while the service was down; none were lost.`,
          `About ${orders} were delayed and none were lost.`,
        ),
        fact(
          "blameless",
          `The review was run in a blameless format, and all actions have owners and dates.`,
          `The review was blameless and every action has an owner.`,
        ),
      ];
    },
    headings: ["Summary", "Timeline", "Impact", "Detection", "Root cause", "Recovery", "What went well", "Actions"],
  },
  {
    title: (r) => `Project ${r.pick(["Heron", "Lantern", "Quarry", "Saffron"])} monthly status report`,
    facts: (r) => {
      const status = r.pick(["amber", "red"]);
      const date = `${r.int(2, 28)} ${r.pick(MONTHS)}`;
      const spent = `${r.int(52, 81)}% of the budget`;
      return [
        fact(
          `status is ${status}`,
          `Overall project status is ${status}, mainly because of integration delays.`,
          `Overall status is ${status} because of integration delays.`,
        ),
        fact(date, `The go-live milestone has moved to ${date}.`, `Go-live has moved to ${date}.`),
        fact(spent, `So far the project has spent ${spent}.`, `The project has spent ${spent}.`),
        fact(
          "vendor API",
          `The main open risk is the late vendor API, owned by the programme manager.`,
          `The main risk is the late vendor API.`,
        ),
      ];
    },
    headings: ["Status", "Milestones", "Budget", "Scope", "Risks", "Dependencies", "Resourcing", "Next steps"],
  },
  {
    title: (r, s) => `Minutes of the ${s} site committee, ${r.pick(MONTHS)} meeting`,
    facts: (r) => {
      const approved = r.pick(["the new visitor access policy", "the revised overtime rules", "the canteen contract"]);
      const deferred = r.pick(["the car park resurfacing", "the solar panel proposal", "the new uniform supplier"]);
      const next = `${r.int(2, 28)} ${r.pick(MONTHS)}`;
      return [
        fact(
          approved,
          `The committee approved ${approved} by a clear majority.`,
          `The committee approved ${approved}.`,
        ),
        fact(
          deferred,
          `A decision on ${deferred} was deferred until costs are confirmed.`,
          `The decision on ${deferred} was deferred.`,
        ),
        fact(next, `The next meeting will be held on ${next}.`, `The next meeting is on ${next}.`),
        fact(
          "quorate",
          `The meeting was quorate, with ${r.int(7, 12)} of 12 members present.`,
          `The meeting was quorate.`,
        ),
      ];
    },
    headings: [
      "Attendance",
      "Previous minutes",
      "Matters arising",
      "Finance",
      "Health and safety",
      "Proposals",
      "Any other business",
    ],
  },
  {
    title: (r, s) =>
      `Internal audit report: ${r.pick(["purchasing controls", "stock controls", "payroll controls"])} at ${s}`,
    facts: (r) => {
      const sample = `${r.int(80, 250)} transactions`;
      const findings = `${r.int(3, 9)} findings`;
      const rating = r.pick(["partially effective", "effective with exceptions"]);
      return [
        fact(
          sample,
          `The audit tested a sample of ${sample} from the last two quarters.`,
          `The audit sampled ${sample}.`,
        ),
        fact(
          findings,
          `It raised ${findings}, two of them rated high priority.`,
          `It raised ${findings}, two rated high priority.`,
        ),
        fact(rating, `Overall the controls were rated ${rating}.`, `Controls were rated ${rating}.`),
        fact(
          "90 days",
          `Management agreed to close all high-priority findings within 90 days.`,
          `High-priority findings must close within 90 days.`,
        ),
      ];
    },
    headings: [
      "Scope",
      "Approach",
      "Findings",
      "Purchasing",
      "Approvals",
      "Segregation of duties",
      "Management response",
    ],
  },
  {
    title: (r) => `Customer survey report, ${r.pick(MONTHS)} wave`,
    facts: (r) => {
      const n = `${groupDigits(r.int(1_100, 4_800))} respondents`;
      const score = `${r.int(36, 44) / 10} out of 5`;
      const complaint = r.pick(["delivery slot availability", "slow refunds", "unclear tracking updates"]);
      return [
        fact(n, `The survey received ${n}, a response rate of ${r.int(9, 23)}%.`, `The survey had ${n}.`),
        fact(score, `Overall satisfaction averaged ${score}.`, `Overall satisfaction averaged ${score}.`),
        fact(complaint, `The most common complaint was ${complaint}.`, `The top complaint was ${complaint}.`),
        fact(
          "recommend",
          `Most respondents said they would recommend the service to a friend.`,
          `Most respondents would recommend the service.`,
        ),
      ];
    },
    headings: [
      "Method",
      "Respondents",
      "Satisfaction",
      "Delivery",
      "Returns",
      "Support contacts",
      "Comments",
      "Next wave",
    ],
  },
];

const firstSentence = (p: string): string => at(p.split(/(?<=\.)\s+/), 0);

/** The long_summary cases: six synthetic report kinds, each at a typical (2–4k) and a long (8–12k) length. */
export function longSummaryCases(): WorkloadCase[] {
  const r = makeRng(0x5a02);
  return Array.from({ length: 12 }, (_, i) => {
    const combo = at(COMBOS, Math.floor(i / 3));
    const id = `${CLASS}-${String(i + 1).padStart(2, "0")}`;
    const kind = at(KINDS, i % KINDS.length);
    const site = r.pick(SITES);
    const title = `${kind.title(r, site)} (fictional; synthetic text for the design-v1 workload)`;
    const facts = kind.facts(r, site);
    const target = combo.input_size === "long" ? r.int(8_600, 11_200) : r.int(2_400, 3_500);
    const plain = paragraphsFor(target, opsProse(r, site));
    const withFacts = [...plain];
    facts.forEach((f, k) => {
      const slot = Math.floor(((k + 0.5) / facts.length) * plain.length);
      withFacts[slot] = `${f.doc} ${at(plain, slot)}`;
    });
    // Sections of three or four paragraphs; headings repeat as "(part n)" in long documents.
    const sections: { heading: string; paragraphs: number[] }[] = [];
    for (let p = 0; p < plain.length;) {
      const n = Math.min(r.int(3, 4), plain.length - p);
      const h = at(kind.headings, sections.length % kind.headings.length);
      const part = Math.floor(sections.length / kind.headings.length);
      sections.push({
        heading: part ? `${h} (part ${part + 1})` : h,
        paragraphs: [...Array(n).keys()].map((x) => x + p),
      });
      p += n;
    }
    const doc = `${title}\n\n` +
      sections.map((s) => `## ${s.heading}\n\n${s.paragraphs.map((p) => at(withFacts, p)).join("\n\n")}`).join("\n\n");
    const bullets = facts.map((f) => `- ${f.summary}`).join("\n");
    const sectionLine = (s: { heading: string; paragraphs: number[] }) =>
      `\n- ${s.heading}: ${firstSentence(at(plain, at(s.paragraphs, 0)))}`;
    let reference = `Summary of the ${title.replace(/ \(fictional.*$/, "")}.\n\nKey points:\n${bullets}\n\n`;
    if (combo.output_size === "typical") {
      // A typical summary notes a few other sections; a detailed one covers every section that fits.
      reference += `Also noted:${sections.slice(0, 3).map(sectionLine).join("")}`;
    } else {
      reference += "By section:";
      for (const s of sections) {
        if (countTokens(reference + sectionLine(s)) > DETAILED_BUDGET) break;
        reference += sectionLine(s);
      }
    }
    return finishCase(id, CLASS, PRIORITY, {
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: `${combo.output_size === "typical" ? ASK_TYPICAL : ASK_DETAILED}\n\n${doc}` },
      ],
      max_output_tokens: MAX_OUTPUT,
      ...(combo.output_size === "maximum" ? { expected_output_tokens: maximumLength(r, MAX_OUTPUT, reference) } : {}),
      reference_output: reference,
      quality_check: {
        kind: "contains",
        values: facts.slice(0, 3).map((f) => f.value),
        all: true,
        case_insensitive: true,
      },
      ...combo,
    });
  });
}
