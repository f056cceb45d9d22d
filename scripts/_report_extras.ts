/**
 * The report extras of the demo (knee and limits, outages, ledger waterfall,
 * route comparison) built from the `--json` output of the knee, ledger and
 * compare CLIs, and checked against the report's extras schema.
 *
 * @module
 */
import { ReportExtras } from "../analysis/plots/extras.ts";
import { gpuTimeNote } from "../analysis/compare/route_costs.ts";

// The parts of the CLIs' JSON that the extras use (the CLIs print more).
interface KneeJson {
  knee_offered_rps: number | null;
  knee_source: string | null;
  first_degrading_signal: string | null;
  limit: { headroom: number | null; choices: { headroom: number; limit_rps: number | null }[] };
  recovery: {
    recovery: {
      outages: {
        outages: { start_ms: number; end_ms: number; down_attempts: number; by_kind: Record<string, number> }[];
      };
    };
  }[];
}
interface LedgerJson {
  currency: string;
  pricing: { price_sheet: { name: string; as_of: string }; overheads: { name: string } | null };
  disclosure: { run_id: string; denominator: string; window: { description: string } };
  overall: { accepted: number; cost: Record<string, number>; cost_per_accepted_task: number | null };
  gpu_time: Parameters<typeof gpuTimeNote>[0];
}
interface CompareJson {
  slo_file: string;
  /** The policy file by name and sha256 (never its folder: a report is forwarded). */
  slo_source: string;
  pricing: { price_sheet: { name: string; as_of: string }; overheads: string | null } | null;
  policy: { denominator: string; window: string };
  routes: {
    run_id: string;
    route: string;
    overall: { offered: number; accepted_goodput: number | null; acceptance_rate: number | null };
    extras: Record<string, number | string | null>;
  }[];
}

/** Builds and validates the extras; throws a TypeError naming what is missing when a CLI's JSON changed shape. */
export function demoReportExtras(knee: KneeJson, ledger: LedgerJson, compare: CompareJson): ReportExtras {
  const outages = knee.recovery.flatMap((r) => r.recovery.outages.outages).map((o) => ({
    start_ms: o.start_ms,
    end_ms: o.end_ms,
    label: `outage detected: ${o.down_attempts} down attempts (${Object.keys(o.by_kind).join(", ")})`,
  }));
  const costKey = (e: Record<string, unknown>) => Object.keys(e).find((k) => k.startsWith("cost/accepted "));
  const currency = compare.routes.map((r) => costKey(r.extras)?.slice("cost/accepted ".length)).find(Boolean);
  if (!currency) throw new TypeError("compare --json: no 'cost/accepted <currency>' column (was --prices given?)");
  const p = compare.pricing;
  const lp = ledger.pricing;
  const raw = {
    knee: {
      knee_rps: knee.knee_offered_rps,
      knee_signal: knee.first_degrading_signal ?? knee.knee_source ?? "no knee in the tested range",
      ...(knee.knee_offered_rps === null ? { knee_note: "no knee in the tested range" } : {}),
      limits: knee.limit.choices.flatMap((c) =>
        c.limit_rps === null ? [] : [{ headroom: c.headroom, rps: c.limit_rps }]
      ),
      headroom: knee.limit.headroom,
    },
    outages,
    ledger: {
      currency: ledger.currency,
      components: Object.entries(ledger.overall.cost).map(([name, amount]) => ({ name, amount })),
      accepted_tasks: ledger.overall.accepted,
      disclosure: `run ${ledger.disclosure.run_id} priced with ${lp.price_sheet.name} (as of ${lp.price_sheet.as_of})` +
        ` + overheads ${lp.overheads?.name ?? "none"}; denominator ${ledger.disclosure.denominator}; window: ` +
        ledger.disclosure.window.description + gpuTimeNote(ledger.gpu_time),
    },
    routes: {
      currency,
      disclosure:
        `same schedule and workload on each route (${
          compare.routes.map((r) => r.run_id).join(", ")
        }); SLO ${compare.slo_source}; denominator ${compare.policy.denominator}; window: ${compare.policy.window}; ` +
        `prices ${
          p ? `${p.price_sheet.name} (as of ${p.price_sheet.as_of}) + overheads ${p.overheads ?? "none"}` : "none"
        }`,
      routes: compare.routes.map((r) => {
        const cost = r.extras[`cost/accepted ${currency}`];
        return {
          route: r.route,
          accepted_goodput: r.overall.accepted_goodput,
          acceptance_rate: r.overall.acceptance_rate,
          cost_per_accepted_task: typeof cost === "number" ? cost : null,
          n: r.overall.offered,
        };
      }),
    },
  };
  const res = ReportExtras.safeParse(raw);
  if (!res.success) {
    throw new TypeError(
      `report extras do not match the report's schema: ${
        res.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
      }`,
    );
  }
  return res.data;
}
