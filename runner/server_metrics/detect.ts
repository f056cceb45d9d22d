/**
 * Which source of a server timeline each distinct server of a run has, decided once before ms 0
 * (`--server-metrics auto|llamacpp|vllm|sim|off`): the simulator's `GET /sim/timeline` (fetched at the end), or the
 * engine's own Prometheus `GET /metrics` (llama.cpp: names `llamacpp:…`, with `GET /slots`; vLLM: names `vllm:…`),
 * read once a second during the run (runner/server_metrics/poller.ts). `auto` asks `/sim/timeline` first, then
 * `/metrics`; a server with neither is not polled at all. The first reading is also the baseline of counters.
 *
 * @module
 */
import { hasPrefix, parsePrometheusText } from "../../lib/prometheus_text.ts";
import type { ServerMetricsMode, ServerMetricsRecord, ServerMetricsTarget } from "../../schema/mod.ts";
import { redactUrl } from "../target_url.ts";
import { probeGet, probeTimeline, timelineUrl } from "../timeline_probe.ts";
import { COUNT_COLUMNS, type EngineMapping, type EngineReading, ENGINES, type ServerCounts } from "./engines.ts";

/** How often a polled server is read, ms. */
export const POLL_PERIOD_MS = 1000;

/** A server whose own metrics are read during the run. */
export interface PolledServer {
  /** `GET /metrics` of the server (and `/slots` beside it for llama.cpp). */
  metricsUrl: URL;
  slotsUrl: URL | null;
  /** The routes it serves, joined by "+" in its rows. */
  route: string;
  mapping: EngineMapping;
  exposed: ReadonlySet<keyof ServerCounts>;
  /** The reading before the next one (counters rise from it); the detection's reading at first. */
  previous: EngineReading;
  /** Its entry of run.json `server_metrics.targets`, whose counts the poller keeps up to date. */
  record: ServerMetricsTarget;
}

/** What the detection found: run.json's record, the servers announcing a `/sim/timeline`, the servers to poll. */
export interface DetectedMetrics {
  record: ServerMetricsRecord;
  /** `/sim/timeline` hrefs of the servers whose timeline is fetched at the end. */
  announced: Set<string>;
  polled: PolledServer[];
}

const NOTE = "a polled row is stamped when the server's /metrics answer arrived (run clock); its gauges are the " +
  "server's state then, a counter's rise is since the reading before; a column the server does not expose is 0 in " +
  "every row and listed in not_exposed; a reading without a value an exposed column needs gives no row";

/** `/slots` as JSON, or undefined when it gives none. */
export async function readSlots(url: URL, timeoutMs: number): Promise<unknown> {
  const got = await probeGet(url, timeoutMs, { tries: 1, redirect: "manual" });
  if (!("text" in got)) return undefined;
  try {
    return JSON.parse(got.text);
  } catch {
    // Not JSON: no slots this time.
    return undefined;
  }
}

/** The entry of one server that is not polled. */
function unpolled(routes: string[], server: string, how: string, endpoints: string[] = []): ServerMetricsTarget {
  return {
    routes,
    server,
    source: null,
    how,
    endpoints,
    columns: {},
    not_exposed: [],
    polls: 0,
    failed_polls: 0,
    rows_dropped: 0,
    lines_dropped: 0,
  };
}

/** Decides one server's source; adds it to `out`. */
async function detectOne(
  origin: URL,
  routes: string[],
  mode: ServerMetricsMode,
  out: DetectedMetrics,
  timeoutMs: number,
): Promise<ServerMetricsTarget> {
  const server = redactUrl(origin);
  if (mode === "off") return unpolled(routes, server, "--server-metrics off");
  // In auto mode, why the simulator's timeline is not there leads the reason when /metrics gives none either.
  let noSim = "";
  if (mode === "sim" || mode === "auto") {
    const href = timelineUrl(origin).href;
    const why = await probeTimeline(href, timeoutMs);
    if (why === null) {
      out.announced.add(href);
      return {
        ...unpolled(
          routes,
          server,
          `GET /sim/timeline answered a JSON array (${mode}): the simulator's timeline, ` +
            "fetched once at the end",
          ["/sim/timeline"],
        ),
        source: "sim",
        columns: { "*": "GET /sim/timeline (the simulator's own per-second timeline)" },
      };
    }
    if (mode === "sim") return unpolled(routes, server, `no /sim/timeline (${why})`, ["/sim/timeline"]);
    noSim = `no /sim/timeline (${why}); `;
  }
  const metricsUrl = new URL("/metrics", origin);
  const got = await probeGet(metricsUrl, timeoutMs, { tries: 2, redirect: "manual" });
  if (!("text" in got)) return unpolled(routes, server, `${noSim}GET /metrics: ${got.why}: not polled`, ["/metrics"]);
  const metrics = parsePrometheusText(got.text);
  const source = mode === "auto"
    ? (hasPrefix(metrics, "llamacpp:") ? "llamacpp" : hasPrefix(metrics, "vllm:") ? "vllm" : null)
    : mode as "llamacpp" | "vllm";
  if (source === null || !hasPrefix(metrics, `${source}:`)) {
    const names = source === null ? "llamacpp: or vllm:" : `${source}:`;
    return unpolled(routes, server, `${noSim}GET /metrics has no ${names} metric: not polled`, ["/metrics"]);
  }
  const mapping = ENGINES[source];
  const slotsUrl = source === "llamacpp" ? new URL("/slots", origin) : null;
  const first: EngineReading = { metrics, ...(slotsUrl ? { slots: await readSlots(slotsUrl, timeoutMs) } : {}) };
  const exposed = new Set(mapping.exposed(first));
  const record: ServerMetricsTarget = {
    ...unpolled(
      routes,
      server,
      mode === "auto" ? `GET /metrics names ${source}: metrics (auto)` : `--server-metrics ${source}`,
    ),
    source,
    endpoints: slotsUrl && exposed.has("kv_tokens") ? ["/metrics", "/slots"] : ["/metrics"],
    columns: Object.fromEntries([...exposed].map((c) => [c, mapping.columns[c]!])),
    not_exposed: COUNT_COLUMNS.filter((c) => !exposed.has(c)),
    lines_dropped: metrics.dropped,
  };
  out.polled.push({
    metricsUrl,
    slotsUrl: exposed.has("kv_tokens") ? slotsUrl : null,
    route: routes.join("+"),
    mapping,
    exposed,
    previous: first,
    record,
  });
  return record;
}

/**
 * Decides the source of every distinct server (by origin) of `routes`, concurrently, each probe within `timeoutMs`;
 * one `note:` line per server says what was chosen or why it is not polled.
 */
export async function detectServerMetrics(
  routes: readonly { route: string; url: URL }[],
  mode: ServerMetricsMode,
  options: { timeoutMs?: number; note?: (line: string) => void } = {},
): Promise<DetectedMetrics> {
  const { timeoutMs = 2000, note = (l: string) => console.error(l) } = options;
  const byOrigin = new Map<string, { origin: URL; routes: string[] }>();
  for (const r of routes) {
    const origin = new URL("/", r.url);
    const hit = byOrigin.get(origin.href);
    if (hit) hit.routes.push(r.route);
    else byOrigin.set(origin.href, { origin, routes: [r.route] });
  }
  const out: DetectedMetrics = {
    record: { mode, period_ms: POLL_PERIOD_MS, targets: [], note: NOTE },
    announced: new Set(),
    polled: [],
  };
  out.record.targets = await Promise.all(
    [...byOrigin.values()].map((s) => detectOne(s.origin, s.routes, mode, out, timeoutMs)),
  );
  for (const t of out.record.targets) {
    if (mode === "off") continue;
    const what = t.source === null ? "no server timeline" : `server timeline from ${t.source}`;
    note(`note: ${t.server} (route ${t.routes.join("+")}): ${what}: ${t.how}`);
  }
  return out;
}
