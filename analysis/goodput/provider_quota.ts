/**
 * How close a run came to the provider's stated quota, stage by stage, beside its accepted goodput, and which bound
 * first: the provider's quota or the service's capacity. A vendor's quota is not its capacity: a run can be refused
 * for quota long before the service slows, or slow down with most of its quota left. Read from the attempts' contract
 * 1.7 columns (the rate limits each response head stated, the tier asked for and served); a run whose heads stated
 * none gets one line, "no quota headers recorded", and nothing more.
 *
 * @module
 */
import pl from "nodejs-polars";
import { sig } from "../../lib/number_format.ts";
import { significantDrop } from "../compare/compare.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { GoodputResult } from "./goodput.ts";

/** A stated remaining count is "near 0" at or below this share of its limit. */
export const QUOTA_NEAR_FRACTION = 0.05;

/** The rules, as the disclosure and docs/analysis.md state them. */
export const PROVIDER_QUOTA_RULES: readonly string[] = [
  "per stage, over the attempts of the stage's requests: the least remaining/limit any response head stated, for " +
  "requests and for tokens (attempts rl_remaining_* / rl_limit_*)",
  "the implied quota rate: the median over the attempts that state a limit, a remaining count below it and a reset " +
  "time > 0 of (limit − remaining) / reset seconds: the refill rate of a quota that refills continuously and states " +
  "the time until full (OpenAI, Anthropic); null when no attempt states all three",
  "rate-limited: attempts refused with HTTP 429",
  `the quota bound first at the first stage (in run order) with a rate-limited attempt while a stated remaining count ` +
  `reached 0, or where acceptance fell while a stated remaining count was within ${
    QUOTA_NEAR_FRACTION * 100
  } % of its limit; the service's capacity bound first at the first stage where acceptance fell with every stated ` +
  "remaining count above that; acceptance fell at a stage when it is below the best acceptance of the stages " +
  "before it by a one-sided two-proportion z-test at 95 % (z > 1.645)",
  "served tier: attempts by the tier the provider says served them, per stage and route, when any is recorded; an " +
  "attempt is served another tier than requested when both are stated and differ (a request of `auto` matches any " +
  "tier, one of `<tier>_only` matches `<tier>`)",
];

/** The least remaining share of a limit a stage's heads stated. */
export interface QuotaLeast {
  remaining: number;
  limit: number;
  /** remaining / limit. */
  fraction: number;
}

/** One stage: its accepted goodput and what the provider said about its quota there. */
export interface QuotaStageRow {
  stage: string;
  offered: number;
  accepted: number;
  accepted_goodput: number | null;
  acceptance_rate: number | null;
  /** Attempts of the stage's requests. */
  attempts: number;
  /** Of them, attempts whose response head stated any limit. */
  with_limits: number;
  /** Attempts refused with HTTP 429. */
  rate_limited: number;
  least_requests: QuotaLeast | null;
  least_tokens: QuotaLeast | null;
  /** The implied quota rate in requests/s and tokens/s (see the rules); null when not stated. */
  quota_rps: number | null;
  quota_tokens_per_s: number | null;
}

/** Which bound first. */
export interface QuotaBound {
  by: "quota" | "capacity" | "neither" | "not_recorded";
  /** The stage where it bound; null for `neither` and `not_recorded`. */
  stage: string | null;
  /** The one-line statement. */
  line: string;
}

/** Attempts of one stage and route by the tier asked for and the tier served. */
export interface TierRow {
  stage: string;
  route: string;
  requested: string | null;
  served: string | null;
  attempts: number;
  /** Served another tier than requested (see the rules). */
  mismatch: boolean;
}

/** The result of {@linkcode providerQuota}. */
export interface ProviderQuotaResult {
  /** Some response head stated a limit. */
  recorded: boolean;
  bound: QuotaBound;
  /** Per stage, in run order; empty when nothing was recorded. */
  stages: QuotaStageRow[];
  /** Per stage × route × requested × served, when any served tier is recorded; else empty. */
  tiers: TierRow[];
  /** One line on the served tiers (null when none is recorded). */
  tier_line: string | null;
  rules: readonly string[];
}

interface Att {
  stage: string | null;
  route: string;
  http_status: number | null;
  service_tier_requested: string | null;
  service_tier: string | null;
  rl_limit_requests: number | null;
  rl_remaining_requests: number | null;
  rl_limit_tokens: number | null;
  rl_remaining_tokens: number | null;
  rl_reset_requests_ms: number | null;
  rl_reset_tokens_ms: number | null;
}

const LIMIT_COLUMNS = [
  "rl_limit_requests",
  "rl_remaining_requests",
  "rl_limit_tokens",
  "rl_remaining_tokens",
  "rl_reset_requests_ms",
  "rl_reset_tokens_ms",
] as const;

/** Served `served` answers a request of `requested` (see the rules). */
export function tierMatches(requested: string | null, served: string | null): boolean {
  if (requested === null || served === null || requested === "auto") return true;
  return served === requested || requested === `${served}_only`;
}

function least(rows: Att[], rem: "rl_remaining_requests" | "rl_remaining_tokens", lim: keyof Att): QuotaLeast | null {
  let best: QuotaLeast | null = null;
  for (const a of rows) {
    const r = a[rem];
    const l = a[lim] as number | null;
    if (r === null || l === null || l <= 0) continue;
    const f = Math.min(1, r / l);
    if (best === null || f < best.fraction) best = { remaining: r, limit: l, fraction: f };
  }
  return best;
}

function impliedRate(rows: Att[], lim: keyof Att, rem: keyof Att, reset: keyof Att): number | null {
  const rates = rows.flatMap((a) => {
    const l = a[lim] as number | null, r = a[rem] as number | null, t = a[reset] as number | null;
    return l !== null && r !== null && t !== null && r < l && t > 0 ? [(l - r) / (t / 1000)] : [];
  }).sort((x, y) => x - y);
  if (!rates.length) return null;
  const mid = rates.length >> 1;
  return rates.length % 2 ? rates[mid]! : (rates[mid - 1]! + rates[mid]!) / 2;
}

const pct = (f: number) => `${sig(f * 100, 3)} %`;

/**
 * The provider's quota per stage beside the accepted goodput of `g` (goodput() of the same run), which bound first,
 * and the tiers served. Pure: reads `run.attempts` and `run.requests`.
 *
 * @example A run whose heads stated nothing
 * ```ts ignore
 * assert.equal(providerQuota(run, goodput(run, policy)).bound.line, "provider quota: no quota headers recorded");
 * ```
 */
export function providerQuota(run: Pick<LoadedRun, "attempts" | "requests">, g: GoodputResult): ProviderQuotaResult {
  const joined = run.attempts.select(
    "request_id",
    "route",
    "http_status",
    "service_tier_requested",
    "service_tier",
    ...LIMIT_COLUMNS,
  )
    .join(run.requests.select("request_id", "stage"), { on: "request_id", how: "left" });
  const counts = new Map(
    (joined.groupBy("stage").agg(pl.len().alias("n")).toRecords() as { stage: string | null; n: number }[])
      .map((r) => [r.stage, Number(r.n)]),
  );
  const any = LIMIT_COLUMNS.map((c) => pl.col(c).isNotNull()).reduce((a, b) => a.or(b));
  const said = joined.filter(any.or(pl.col("http_status").eq(429)).or(pl.col("service_tier").isNotNull()))
    .toRecords() as unknown as Att[];
  const limited = said.filter((a) => LIMIT_COLUMNS.some((c) => a[c] !== null));
  const { tiers, tier_line } = tierRows(said, g);
  if (!limited.length) {
    const bound: QuotaBound = { by: "not_recorded", stage: null, line: "provider quota: no quota headers recorded" };
    return { recorded: false, bound, stages: [], tiers, tier_line, rules: PROVIDER_QUOTA_RULES };
  }
  const stages = g.by_stage.map((s): QuotaStageRow => {
    const mine = said.filter((a) => a.stage === s.stage);
    return {
      stage: s.stage,
      offered: s.offered,
      accepted: s.accepted,
      accepted_goodput: s.accepted_goodput,
      acceptance_rate: s.acceptance_rate,
      attempts: counts.get(s.stage) ?? 0,
      with_limits: mine.filter((a) => LIMIT_COLUMNS.some((c) => a[c] !== null)).length,
      rate_limited: mine.filter((a) => a.http_status === 429).length,
      least_requests: least(mine, "rl_remaining_requests", "rl_limit_requests"),
      least_tokens: least(mine, "rl_remaining_tokens", "rl_limit_tokens"),
      quota_rps: impliedRate(mine, "rl_limit_requests", "rl_remaining_requests", "rl_reset_requests_ms"),
      quota_tokens_per_s: impliedRate(mine, "rl_limit_tokens", "rl_remaining_tokens", "rl_reset_tokens_ms"),
    };
  });
  return { recorded: true, bound: whichBound(stages), stages, tiers, tier_line, rules: PROVIDER_QUOTA_RULES };
}

/** The least stated share of a stage (requests or tokens), null when it stated none. */
function leastShare(s: QuotaStageRow): QuotaLeast | null {
  const both = [s.least_requests, s.least_tokens].filter((x): x is QuotaLeast => x !== null);
  return both.length ? both.reduce((a, b) => (b.fraction < a.fraction ? b : a)) : null;
}

function shareText(s: QuotaStageRow): string {
  const parts = [
    s.least_requests && `requests ${s.least_requests.remaining}/${s.least_requests.limit}`,
    s.least_tokens && `tokens ${s.least_tokens.remaining}/${s.least_tokens.limit}`,
  ].filter(Boolean);
  return `least remaining ${parts.join(", ")}`;
}

/** The first stage, in run order, where the quota or the capacity bound (see the rules). */
export function whichBound(stages: readonly QuotaStageRow[]): QuotaBound {
  let best: QuotaStageRow | null = null;
  for (const s of stages) {
    const share = leastShare(s);
    const fell = best !== null && significantDrop(best.accepted, best.offered, s.accepted, s.offered);
    if (share !== null && s.rate_limited > 0 && share.remaining === 0) {
      return {
        by: "quota",
        stage: s.stage,
        line: `provider quota bound first: stage ${s.stage}, ${s.rate_limited} attempts refused with 429 as the ` +
          `stated quota reached 0 (${shareText(s)})`,
      };
    }
    if (fell && share !== null) {
      const acc = `acceptance fell to ${pct(s.acceptance_rate ?? 0)} from ${pct(best!.acceptance_rate ?? 0)}`;
      if (share.fraction <= QUOTA_NEAR_FRACTION) {
        return {
          by: "quota",
          stage: s.stage,
          line: `provider quota bound first: stage ${s.stage}, ${acc} with the quota near 0 (${shareText(s)})`,
        };
      }
      return {
        by: "capacity",
        stage: s.stage,
        line: `service capacity bound first: stage ${s.stage}, ${acc} with quota headroom left (${shareText(s)}, ` +
          `${pct(share.fraction)} of the limit)`,
      };
    }
    if (s.offered > 0 && (best === null || (s.acceptance_rate ?? 0) > (best.acceptance_rate ?? 0))) best = s;
  }
  const shares = stages.map(leastShare).filter((x): x is QuotaLeast => x !== null);
  const low = shares.length ? shares.reduce((a, b) => (b.fraction < a.fraction ? b : a)) : null;
  return {
    by: "neither",
    stage: null,
    line: `provider quota: neither bound in this run: acceptance did not fall and the quota was not reached` +
      (low ? ` (least remaining ${low.remaining}/${low.limit}, ${pct(low.fraction)})` : ""),
  };
}

function tierRows(said: Att[], g: GoodputResult): { tiers: TierRow[]; tier_line: string | null } {
  const tiered = said.filter((a) => a.service_tier !== null);
  if (!tiered.length) return { tiers: [], tier_line: null };
  const order = new Map(g.by_stage.map((s, i) => [s.stage, i]));
  const groups = new Map<string, TierRow>();
  for (const a of tiered) {
    const stage = a.stage ?? "(no stage)";
    const key = JSON.stringify([stage, a.route, a.service_tier_requested, a.service_tier]);
    const row = groups.get(key) ?? {
      stage,
      route: a.route,
      requested: a.service_tier_requested,
      served: a.service_tier,
      attempts: 0,
      mismatch: !tierMatches(a.service_tier_requested, a.service_tier),
    };
    row.attempts++;
    groups.set(key, row);
  }
  const text = (x: string | null) => x ?? "";
  const tiers = [...groups.values()].sort((a, b) =>
    (order.get(a.stage) ?? Infinity) - (order.get(b.stage) ?? Infinity) || a.route.localeCompare(b.route) ||
    text(a.requested).localeCompare(text(b.requested)) || text(a.served).localeCompare(text(b.served))
  );
  const off = tiers.filter((t) => t.mismatch);
  const n = off.reduce((s, t) => s + t.attempts, 0);
  const byServed = new Map<string, number>();
  for (const t of tiers) byServed.set(t.served!, (byServed.get(t.served!) ?? 0) + t.attempts);
  const served = [...byServed].map(([k, v]) => `${k} ${v}`).join(", ");
  const pairs = [...new Set(off.map((t) => `${t.requested} → ${t.served} on ${t.route}`))].join("; ");
  return {
    tiers,
    tier_line: off.length
      ? `SERVED ANOTHER TIER: ${n} of ${tiered.length} attempts were served another tier than requested (${pairs}); ` +
        `tiers are priced differently (served: ${served})`
      : `served tiers: ${served} (none other than requested)`,
  };
}
