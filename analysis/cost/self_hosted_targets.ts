/**
 * The self-hosted targets of a run, as the server timeline labels them, and
 * how a target's fixed costs are spread over the window's requests.
 *
 * @module
 */
import type pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import type { RoutePrice, SelfHostedPrice } from "../../schema/prices.ts";
import type { AttemptColumns } from "./price_attempts.ts";

/** One self-hosted target: a server-timeline label and the routes it serves. */
export interface Target {
  label: string;
  members: string[];
  price: SelfHostedPrice;
  server: pl.DataFrame | null;
  match: (label: string) => boolean;
  /** Why `server` is null when the run has server rows for it (e.g. its engine does not expose replicas). */
  without?: string;
}

/**
 * Self-hosted targets of the run: one per server-timeline label (routes
 * sharing a target are labelled "a+b" and priced once); without a route
 * column the single self-hosted route gets the whole timeline. A target whose
 * server does not expose replica counts (`noReplicas`: route → the run.json
 * `server_metrics` source that says so; a real engine's metrics, where 0 in
 * `replicas` means "not exposed") gets no timeline: its rows would price it
 * at 0 replicas, so the sheet's `fixed_replicas` prices it instead.
 */
export function selfHostedTargets(
  server: pl.DataFrame | null,
  routes: string[],
  price: Map<string, RoutePrice>,
  noReplicas: ReadonlyMap<string, string> = new Map(),
): Target[] {
  return timelineTargets(server, routes, price).map((t) => {
    const source = t.server ? t.members.map((m) => noReplicas.get(m)).find((x) => x !== undefined) : undefined;
    if (source === undefined) return t;
    const without = `its server timeline (${source}) does not expose replicas`;
    return { ...t, server: null, match: () => false, without };
  });
}

function timelineTargets(
  server: pl.DataFrame | null,
  routes: string[],
  price: Map<string, RoutePrice>,
): Target[] {
  const self = routes.filter((r) => price.get(r)!.kind === "self_hosted");
  if (!self.length) return [];
  if (!server || !server.columns.includes("route")) {
    if (self.length > 1) {
      throw new InputError(
        `routes ${
          self.join(", ")
        } are priced self-hosted but the server timeline has no route column to split GPU time`,
      );
    }
    return [{
      label: self[0]!,
      members: self,
      price: price.get(self[0]!) as SelfHostedPrice,
      server,
      match: () => true,
    }];
  }
  const labels = [...new Set(server.getColumn("route").toArray() as string[])].sort();
  const out: Target[] = [];
  const placed = new Set<string>();
  for (const label of labels) {
    const members = label.split("+").filter((m) => self.includes(m));
    if (!members.length) continue;
    const ps = members.map((m) => price.get(m) as SelfHostedPrice);
    if (ps.some((p) => JSON.stringify(p) !== JSON.stringify(ps[0]))) {
      throw new InputError(
        `routes ${members.join(", ")} share one server (${label}) but have different self-hosted prices`,
      );
    }
    members.forEach((m) => placed.add(m));
    out.push({ label, members, price: ps[0]!, server, match: (l) => l === label });
  }
  for (const r of self.filter((m) => !placed.has(m))) {
    out.push({ label: r, members: [r], price: price.get(r) as SelfHostedPrice, server: null, match: () => false });
  }
  return out;
}

/** Each request's input + output tokens on the target's routes (its attempt count when no tokens were logged). */
export function targetWeights(cols: AttemptColumns, n: number, members: string[]): Float64Array {
  const tok = new Float64Array(n), cnt = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < cols.req.length; i++) {
    if (!members.includes(cols.route[i]!)) continue;
    tok[cols.req[i]!]! += cols.input[i]! + cols.output[i]!;
    cnt[cols.req[i]!]! += 1;
    total += cols.input[i]! + cols.output[i]!;
  }
  return total > 0 ? tok : cnt;
}
