import type { FallbackTrigger, RoutingPolicy } from "../schema/mod.ts";

/** A failed attempt as the router sees it. */
export interface RoutedFailure {
  status: number | null;
  outcome: string;
  kind: string;
}

/**
 * Sends each request to its routes under a routing policy: `chain` gives the
 * route a request starts on, then the routes it falls back to, in order.
 * Deterministic: the chain depends only on the policy, the request id and
 * its class, so shards and reruns agree.
 *
 * @example Split by percent is a seeded hash of the request id
 * ```ts
 * import { Router } from "./router.ts";
 * import assert from "node:assert/strict";
 * const routes = new Map([["a", "A"], ["b", "B"]]);
 * const r = new Router({ kind: "split_by_percent", weights: { a: 1, b: 0 }, seed: 0 }, routes);
 * assert.deepEqual(r.chain("r-1", "qa"), ["A"]);
 * ```
 */
export class Router<R> {
  /** Triggers that move a request to its next route (empty unless the policy is a fallback). */
  readonly on: ReadonlySet<FallbackTrigger>;
  readonly #policy: RoutingPolicy;
  readonly #single: readonly R[] | null = null;
  readonly #byName = new Map<string, readonly R[]>();
  readonly #cumulative: { upTo: number; chain: readonly R[] }[] = [];
  readonly #seed: number;

  /** `routes`: route name → route; every name the policy uses must be there (the schema checks it). */
  constructor(policy: RoutingPolicy, routes: ReadonlyMap<string, R>) {
    this.#policy = policy;
    const get = (name: string): R => {
      const r = routes.get(name);
      if (r === undefined) throw new TypeError(`routing policy names route "${name}", which is not defined`);
      return r;
    };
    for (const name of routes.keys()) this.#byName.set(name, [get(name)]);
    this.on = new Set(policy.kind === "fallback" ? policy.on : []);
    this.#seed = policy.kind === "split_by_percent" ? policy.seed : 0;
    if (policy.kind === "single") this.#single = [get(policy.route)];
    else if (policy.kind === "fallback") this.#single = [get(policy.primary), ...policy.fallbacks.map(get)];
    else if (policy.kind === "split_by_percent") {
      const entries = Object.entries(policy.weights).filter(([, w]) => w > 0);
      const total = entries.reduce((s, [, w]) => s + w, 0);
      let acc = 0;
      for (const [name, w] of entries) {
        acc += w / total;
        this.#cumulative.push({ upTo: acc, chain: [get(name)] });
      }
    } else {
      get(policy.default);
      for (const name of Object.values(policy.classes)) get(name);
    }
  }

  /** The routes of one request: the first is where it starts, the rest its fallbacks in order. */
  chain(requestId: string, cls: string): readonly R[] {
    if (this.#single) return this.#single;
    const p = this.#policy;
    if (p.kind === "split_by_class") return this.#byName.get(p.classes[cls] ?? p.default)!;
    const u = unitHash(this.#seed, requestId);
    for (const c of this.#cumulative) if (u < c.upTo) return c.chain;
    // u is below 1 and the last bound is 1 up to rounding: the last route takes the rest.
    return this.#cumulative[this.#cumulative.length - 1]!.chain;
  }

  /** Which fallback trigger a failure is, when the policy falls back on it; else null. */
  trigger(f: RoutedFailure): FallbackTrigger | null {
    if (this.on.size === 0) return null;
    const t = fallbackTrigger(f);
    return t !== null && this.on.has(t) ? t : null;
  }
}

/**
 * The trigger class of a failed attempt: `429`; `timeout` (attempt, header or idle
 * timeout; a request past its own deadline has nothing left to try); `error`
 * (5xx, or a transport failure); else null (bad request, invalid body, stop).
 */
export function fallbackTrigger(f: RoutedFailure): FallbackTrigger | null {
  if (f.status === 429) return "429";
  if (f.outcome === "timeout") return f.kind === "request_timeout" ? null : "timeout";
  if ((f.status !== null && f.status >= 500) || f.outcome === "transport_error") return "error";
  return null;
}

/**
 * A uniform number in [0, 1) from the seed and a request id (FNV-1a then a
 * murmur3 finaliser): the same id always lands on the same route.
 */
export function unitHash(seed: number, id: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}
