/**
 * A volume costing as text: the demand, one row per route (replicas or quota, monthly cost, cost per accepted task,
 * extrapolated or not), the crossings, each route's detail, then one line per caveat.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import type { HostedAtVolume, RouteAtVolume, SelfHostedAtVolume, VolumeResult } from "./volume.ts";

const pct = (x: number) => `${sig(x * 100, 3)} %`;
/** Money: 6 significant digits, enough for two routes' figures to differ where they differ. */
const money = (x: number) => sig(x, 6);

function replicasText(s: SelfHostedAtVolume): string {
  return `${s.route}: ${s.replicas} replicas (${s.replicas_for_demand} + ${s.redundancy} spare) × ${
    s.gpus / (s.replicas || 1)
  } ${s.gpu_type}, idle ${pct(s.idle.idle_share)}`;
}

function quotaText(h: HostedAtVolume): string {
  const stated = h.stated.stated_requests === null && h.stated.stated_tokens === null
    ? "no quota headers recorded"
    : `stated ${sig(h.stated.stated_requests, 6)} req/min, ${sig(h.stated.stated_tokens, 6)} tok/min: ${
      h.covers_requests === false || h.covers_tokens === false ? "NOT COVERED" : "covered"
    }`;
  return `${h.route}: quota ${sig(h.requests_per_min, 4)} req/min, ${sig(h.tokens_per_min, 4)} tok/min (${stated})`;
}

function capacity(r: RouteAtVolume): string {
  return [...r.self_hosted.map(replicasText), ...r.hosted.map(quotaText)].join("; ");
}

/**
 * The result as text lines.
 *
 * @example
 * ```ts ignore
 * console.log(formatVolume(volumeCosts(runs, compared, policy, prices, demand)).join("\n"));
 * ```
 */
export function formatVolume(v: VolumeResult): string[] {
  const d = v.demand;
  const cur = v.currency;
  const out = [
    `cost at the planned volume: peak ${sig(d.peak_accepted_rps, 6)} accepted tasks/s, ${
      sig(d.monthly_accepted, 6)
    } accepted tasks a month (${d.monthly_from}; ${v.hours_per_month} h a month); redundancy ${
      d.redundancy === null ? "each price sheet's redundancy_replicas" : `${d.redundancy} spare (--redundancy)`
    }`,
    ...textTable(
      ["route", "kind", `monthly ${cur}`, `${cur}/accepted task`, "extrapolated", "replicas or quota at peak"],
      v.routes.map((r) => [
        r.route,
        r.kind,
        money(r.monthly.total),
        money(r.cost_per_accepted_task),
        r.extrapolated ? "EXTRAPOLATION" : "no",
        capacity(r),
      ]),
      { left: 2, lastLeft: true },
    ),
  ];
  const range = `0 to ${sig(2 * d.peak_accepted_rps, 4)} tasks/s`;
  if (!v.crossings.length) out.push(`crossings (${range}): none, the order holds over the whole range`);
  else {
    const pairs = new Map<string, string[]>();
    for (const c of v.crossings) {
      const key = [c.cheaper_below, c.cheaper_above].sort().join(" vs ");
      pairs.set(key, [
        ...(pairs.get(key) ?? []),
        `${c.cheaper_above} cheaper from ${sig(c.demand_rps, 4)}${c.at_step ? " (replica step)" : ""}`,
      ]);
    }
    out.push(`crossings (${range}; where the cheaper of two routes changes):`);
    for (const [pair, at] of pairs) out.push(`  ${pair}: ${at.join(", ")}`);
  }
  for (const r of v.routes) {
    out.push(
      "",
      `${r.route} (run ${r.run_id}, ${r.kind}): acceptance ${pct(r.acceptance)}, offered peak ${
        sig(r.offered_peak_rps, 4)
      } req/s, ${sig(r.offered_monthly, 6)} offered a month`,
    );
    if (r.split.length > 1) {
      out.push(
        `  split of attempts: ${
          r.split.map((s) =>
            `${s.route} ${pct(s.attempt_share)}${s.stated_share === null ? "" : ` (route file ${pct(s.stated_share)})`}`
          ).join(", ")
        }`,
      );
    }
    for (const s of r.self_hosted) {
      out.push(
        `  ${s.route}: ${sig(s.peak_accepted_rps, 4)} accepted/s at peak / ${sig(s.per_replica_accepted_rps, 4)} per ` +
          `replica (${s.per_replica_from}) → ${s.replicas_for_demand} + ${s.redundancy} spare (${s.redundancy_from}) ` +
          `= ${s.replicas} replicas, ${s.gpus} × ${s.gpu_type}: GPUs ${money(s.gpu_monthly)} ${cur}, operations ${
            money(s.operations_monthly)
          } ${cur} a month`,
        `  ${s.route}: replicas measured ${sig(s.measured_replicas, 4)} (${s.replicas_from}); idle ${
          pct(s.idle.idle_share)
        } (${sig(s.idle.used_replica_hours_per_day, 4)} of ${s.idle.provisioned_replica_hours_per_day} replica-hours ` +
          `a day used), peak utilisation ${pct(s.idle.peak_utilisation)}`,
      );
    }
    for (const h of r.hosted) out.push(`  ${quotaText(h)}`);
    out.push(
      `  monthly ${cur}: ${
        r.monthly.variable.filter((x) => x.amount !== 0).map((x) =>
          `${x.label} ${money(x.amount)} (${sig(x.per_offered, 4)}/offered)`
        ).join(", ") || "no per-request cost"
      }; per-hour overheads ${money(r.monthly.hourly)}; GPUs ${money(r.monthly.gpu)}; operations ${
        money(r.monthly.operations)
      }; total ${money(r.monthly.total)}`,
    );
    for (const e of r.extrapolation) out.push(`  EXTRAPOLATION: ${e}`);
  }
  const caveats = v.routes.flatMap((r) => r.caveats);
  if (caveats.length) out.push("", ...caveats.map((c) => `caveat: ${c}`));
  out.push(
    "",
    `measured: ${
      v.measured.map((m) => `${m.route} run ${m.run_id}, ${m.window}, ${m.accepted}/${m.offered} accepted/offered`)
        .join("; ")
    }`,
    `rules: ${v.rules.length} in the result's \`rules\` and docs/cost.md ("Cost at the volume you plan")`,
  );
  return out;
}
