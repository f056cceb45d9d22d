import { createHash } from "node:crypto";
import type { BatchSpec, RouteLimits, RunConditions, RunManifest, RunRouting } from "../schema/mod.ts";
import { InputError } from "../schema/errors.ts";
import { parseWith } from "../schema/load.ts";
import { RoutesFile } from "../schema/routes.ts";
import { readInputFile } from "../schema/read_input.ts";
import type { AttemptTarget } from "./attempt.ts";
import { dialectNamed } from "./dialects/mod.ts";
import type { Clock } from "./clock.ts";
import { createHttpClient, DEFAULT_HTTP_CLIENT, type HttpClient, type HttpClientKind } from "./http/mod.ts";
import { PreconnectError, ReadHook } from "./http/client.ts";
import { RouteLimiter } from "./route_limiter.ts";
import { RUNNER_DEFAULTS } from "./settings.ts";
import { Router } from "./router.ts";
import { redactUrl, scrubUrl } from "./target_url.ts";
import { keyEnvProblem } from "./api_key_env.ts";
import { guardClient, NetAllowList } from "./net_allow.ts";
import { proxyFor } from "./net_proxy.ts";
import { batchProviderFor, BatchRoom, type RouteBatcher } from "./batch/mod.ts";

/** A route ready to send to: its target, its own HTTP client and its limiter. */
export interface RuntimeRoute extends AttemptTarget {
  /** The route's endpoint for an unstreamed call (its server's timeline and model list are found from it). */
  url: URL;
  /** The headers every call carries (the key's included). */
  headers: Record<string, string>;
  client: HttpClient;
  limiter: RouteLimiter | null;
  /** A batch route's batcher (runner/batch/, docs/batch.md); null for a live route. */
  batcher: RouteBatcher | null;
}

/** The routes of a run, the router over them, and what run.json says about them. */
export interface ResolvedRoutes {
  routes: ReadonlyMap<string, RuntimeRoute>;
  router: Router<RuntimeRoute>;
  /** run.json `targets`, one per route (secrets redacted). */
  targets: RunManifest["targets"];
  /** run.json `routing`; undefined for a single `--target`. */
  routing: RunRouting | undefined;
  /** The hosts the run may reach (targets and their proxies); every client request is checked against it. */
  allow: NetAllowList;
  /** Every route's client reports its socket reads here (the open-loop dispatcher listens: runner/dispatch.ts). */
  reads: ReadHook;
  /**
   * Opens `n` keep-alive connections to every route's target before the run; resolves to the number each route opened
   * (run.json `runner.preconnect`): 0 for a route whose client does not pool them (`https:`, fetch); when some connects
   * failed, the number that opened (a warning says how many failed).
   */
  preconnect(n: number): Promise<Record<string, number>>;
  /** The run's batch routes: their batchers and run.json `batches` (docs/batch.md). */
  batching: BatchRoom;
  /** Attempts waiting on a route limit give up, batch items are no longer waited for (the run is stopping). */
  abortWaiting(): void;
  close(): Promise<void>;
}

/** Where the routes come from: one `--target`, or a routes file (with URL overrides). */
export interface RouteSource {
  target?: string | null;
  routes?: string | null;
  /** Route name → base URL, replacing the file's `url` (e.g. simulators on free ports). */
  routeUrls?: Record<string, string>;
  /** Key variable of a single `--target`. @default RUNNER_DEFAULTS.api_key_env ("GOODPUT_API_KEY") */
  apiKeyEnv?: string;
  /** Dialect of a single `--target`. @default "openai-chat" */
  dialect?: string;
  /** Dialect options of a single `--target`. */
  dialectOptions?: Record<string, unknown>;
  httpClient?: HttpClientKind;
}

/**
 * Builds the runtime routes of a run. With `target`, one route named after
 * the run conditions (`route`, `provider`, `model`) under a `single` policy;
 * with `routes`, the routes file's routes and policy. Each route gets its
 * own HTTP client, headers (its own API key) and limiter.
 */
export async function resolveRoutes(
  src: RouteSource,
  conditions: RunConditions,
  clock: Clock,
): Promise<ResolvedRoutes> {
  if (!src.target === !src.routes) throw new InputError("give exactly one of --target URL and --routes FILE");
  const specs = new Map<
    string,
    {
      url: string;
      provider: string;
      model: string;
      keyEnv: string | null;
      limits: RouteLimits;
      dialect: string | undefined;
      options: Record<string, unknown>;
      batch: BatchSpec | null;
    }
  >();
  let routing: RunRouting | undefined;
  let file = "--target";
  let router: Router<RuntimeRoute> | null = null;
  let policy: RunRouting["policy"] = { kind: "single", route: conditions.route };
  if (src.target) {
    specs.set(conditions.route, {
      url: src.target,
      provider: conditions.provider,
      model: conditions.model,
      keyEnv: src.apiKeyEnv ?? RUNNER_DEFAULTS.api_key_env,
      limits: {},
      dialect: src.dialect,
      options: src.dialectOptions ?? {},
      batch: null,
    });
  } else {
    file = src.routes!;
    const bytes = await readInputFile(file, "routes file");
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(bytes));
    } catch (e) {
      throw new InputError(`${file}: routes file is not valid JSON: ${(e as Error).message}`, [], { cause: e });
    }
    const f = parseWith(RoutesFile, json, file, "routes file");
    for (const name of Object.keys(src.routeUrls ?? {})) {
      if (!(name in f.routes)) throw new InputError(`--route-url ${name}: ${file} has no route "${name}"`);
    }
    for (const [name, r] of Object.entries(f.routes)) {
      const url = src.routeUrls?.[name] ?? r.url;
      specs.set(name, {
        url,
        provider: r.provider,
        model: r.model,
        keyEnv: r.api_key_env ?? null,
        limits: r.limits,
        dialect: r.dialect,
        options: r.dialect_options ?? {},
        batch: r.batch ?? null,
      });
    }
    policy = f.policy;
    routing = {
      path: file,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      name: f.name,
      policy: f.policy,
      routes: Object.fromEntries(
        Object.entries(f.routes).map((
          [n, r],
        ) => [n, { limits: r.limits, price_sheet: r.price_sheet ?? null, ...(r.batch ? { batch: r.batch } : {}) }]),
      ),
      note: "attempts.route/provider/model: the route of each attempt (a fallback is an attempt with retry_reason " +
        "fallback:<trigger> on the failed one); requests.route: the route of the last attempt, which produced the " +
        "outcome (never sent: the first route the policy chose)",
    };
  }

  const routes = new Map<string, RuntimeRoute>();
  const batching = new BatchRoom(clock.now);
  const reads = new ReadHook();
  const targets: RunManifest["targets"] = [];
  const proxyHosts: string[] = [];
  for (const [name, s] of specs) {
    const where = src.target ? "--target" : `${file}: routes.${name}`;
    const dialect = dialectNamed(s.dialect, src.target ? "--dialect" : `${where}.dialect`);
    // The key itself given where its variable's name belongs would be written to run.json: refused, not echoed.
    const keyProblem = s.keyEnv ? keyEnvProblem(s.keyEnv, (n) => Deno.env.get(n)) : null;
    if (keyProblem) {
      throw new InputError(`${src.target ? "--api-key-env" : `${where}.api_key_env`}: ${keyProblem}`);
    }
    const key = s.keyEnv ? Deno.env.get(s.keyEnv) ?? null : null;
    const prepared = dialect.prepare({
      url: s.url,
      model: s.model,
      key,
      options: s.options,
      where: src.target ? "--target" : where,
    });
    const url = prepared.url(false);
    // The raw client honours no proxy variable: a route a proxy applies to goes by fetch, which does (net_proxy.ts).
    const proxy = proxyFor(url);
    if (proxy && src.httpClient === "raw" && url.protocol === "http:") {
      throw new InputError(
        `--http-client raw: ${redactUrl(url)} (route ${name}) goes through the proxy ${proxy.url} (${proxy.env}), ` +
          "which only the fetch client honours: use --http-client fetch, or name the host in NO_PROXY",
      );
    }
    const kind = src.httpClient ?? (url.protocol === "https:" || proxy ? "fetch" : DEFAULT_HTTP_CLIENT);
    const hasLimits = s.limits.max_in_flight !== undefined || s.limits.rps !== undefined;
    const runtime: RuntimeRoute = {
      url,
      headers: prepared.headers,
      dialect,
      prepared,
      route: name,
      provider: s.provider,
      model: s.model,
      client: createHttpClient(kind, { clock, reads }),
      limiter: hasLimits ? new RouteLimiter(s.limits, clock.now) : null,
      batcher: null,
    };
    if (s.batch) runtime.batcher = batching.add(runtime, s.batch, batchProviderFor(runtime, where));
    routes.set(name, runtime);
    targets.push({
      route: name,
      url: redactUrl(url),
      provider: s.provider,
      model: s.model,
      api_key_env: s.keyEnv,
      api_key_present: key !== null,
      http_client: kind,
      dialect: dialect.name,
      dialect_options: prepared.options,
      proxy: proxy ? { url: proxy.url, env: proxy.env } : null,
    });
    if (proxy) proxyHosts.push(proxy.hostPort);
  }
  // Every request of the run is checked against the hosts named above (a request elsewhere is a runner bug).
  const allow = new NetAllowList([...routes.values()].map((r) => r.url), proxyHosts);
  for (const r of routes.values()) r.client = guardClient(r.client, allow);
  router = new Router(policy, routes);
  return {
    routes,
    router,
    targets,
    routing,
    allow,
    reads,
    batching,
    async preconnect(n) {
      const opened: Record<string, number> = {};
      for (const [name, r] of routes) {
        if (!r.client.preconnect) {
          opened[name] = 0;
          continue;
        }
        opened[name] = await r.client.preconnect(r.url, n).catch((e) => {
          console.error(
            `warning: could not open connections to ${redactUrl(r.url)} before the run: ${
              scrubUrl((e as Error).message, r.url)
            }`,
          );
          return e instanceof PreconnectError ? e.opened : 0;
        });
      }
      return opened;
    },
    abortWaiting() {
      for (const r of routes.values()) r.limiter?.abortAll();
      batching.stop();
    },
    async close() {
      await Promise.all([...routes.values()].map((r) => r.client.close()));
    },
  };
}

/**
 * `--dialect-option KEY=VALUE` flags as a record: VALUE read as JSON when it is JSON (a number, a list), else as
 * text; a malformed one is an {@linkcode InputError}.
 *
 * @example
 * ```ts
 * import { parseDialectOptions } from "./resolve_routes.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseDialectOptions(["api_version=2024-10-21", "thinking_budget_tokens=1024"]),
 *   { api_version: "2024-10-21", thinking_budget_tokens: 1024 });
 * ```
 */
export function parseDialectOptions(flags: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of flags) {
    const i = f.indexOf("=");
    if (i < 1) throw new InputError(`--dialect-option: expected KEY=VALUE, got ${JSON.stringify(f.slice(0, 60))}`);
    const key = f.slice(0, i), raw = f.slice(i + 1);
    if (key in out) throw new InputError(`--dialect-option: ${key} given twice`);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the text as given (an api version, a region).
    }
    out[key] = value;
  }
  return out;
}

/** `--route-url NAME=URL` flags as a record; a malformed one is an {@linkcode InputError}. */
export function parseRouteUrls(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags) {
    const i = f.indexOf("=");
    if (i < 1) throw new InputError(`--route-url: expected NAME=URL, got "${f}"`);
    out[f.slice(0, i)] = f.slice(i + 1);
  }
  return out;
}
