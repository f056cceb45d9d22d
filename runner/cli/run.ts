/**
 * `deno task run --workload F --plan F (--target URL | --routes F) --out DIR [--format csv|parquet|both]
 * [--conditions F] [--seed N] ...`: one open-loop run, written as a raw event log.
 */
import { InputError } from "../../schema/errors.ts";
import { HTTP_CLIENT_KINDS, type HttpClientKind } from "../http/mod.ts";
import { formatRunReport } from "../report.ts";
import { parseRouteUrls } from "../resolve_routes.ts";
import { runLoadTest } from "../run.ts";
import { numberFlag, parseFlags, runMain, shardFlag } from "./_cli.ts";

export const USAGE = `usage: deno task run --workload F --plan F (--target URL | --routes F) --out DIR
  [--route-url NAME=URL ...]
  [--format csv|parquet|both] [--conditions F] [--seed N] [--run-id ID]
  [--shard i/N --start-at ISO] [--api-key-env NAME] [--retry F] [--timeouts F]
  [--max-send-lag-ms N] [--max-in-flight N] [--lag-limit-ms N] [--save-outputs]
  [--http-client raw|fetch] [--no-progress] [--no-server-timeline]`;

if (import.meta.main) {
  await runMain(async () => {
    const { values: v } = parseFlags(Deno.args, {
      workload: { type: "string" },
      plan: { type: "string" },
      target: { type: "string" },
      routes: { type: "string" },
      "route-url": { type: "string", multiple: true },
      out: { type: "string" },
      format: { type: "string", default: "both" },
      conditions: { type: "string" },
      seed: { type: "string" },
      "run-id": { type: "string" },
      shard: { type: "string" },
      "start-at": { type: "string" },
      "api-key-env": { type: "string" },
      retry: { type: "string" },
      timeouts: { type: "string" },
      "max-send-lag-ms": { type: "string" },
      "max-in-flight": { type: "string" },
      "lag-limit-ms": { type: "string" },
      "save-outputs": { type: "boolean" },
      "http-client": { type: "string" },
      "no-progress": { type: "boolean" },
      "no-server-timeline": { type: "boolean" },
      help: { type: "boolean" },
    }, USAGE);
    if (v.help) {
      console.log(USAGE);
      return 0;
    }
    for (const f of ["workload", "plan", "out"] as const) {
      if (!v[f]) throw new InputError(`--${f} is required\n${USAGE}`);
    }
    if (!v.target === !v.routes) throw new InputError(`give exactly one of --target and --routes\n${USAGE}`);
    if (v["route-url"] && !v.routes) throw new InputError(`--route-url needs --routes\n${USAGE}`);
    const formats = { csv: ["csv"], parquet: ["parquet"], both: ["csv", "parquet"] }[v.format!] as
      | ("csv" | "parquet")[]
      | undefined;
    if (!formats) throw new InputError(`--format: expected csv, parquet or both, got "${v.format}"`);
    const client = v["http-client"];
    if (client !== undefined && !(HTTP_CLIENT_KINDS as readonly string[]).includes(client)) {
      throw new InputError(`--http-client: expected one of ${HTTP_CLIENT_KINDS.join(", ")}, got "${client}"`);
    }
    if (v["start-at"] !== undefined && Number.isNaN(Date.parse(v["start-at"]))) {
      throw new InputError(`--start-at: not an ISO date-time: "${v["start-at"]}"`);
    }
    const { dir, manifest, requests } = await runLoadTest({
      workload: v.workload!,
      plan: v.plan!,
      target: v.target ?? null,
      routes: v.routes ?? null,
      routeUrls: parseRouteUrls(v["route-url"] ?? []),
      out: v.out!,
      formats,
      conditions: v.conditions ?? null,
      seed: numberFlag("seed", v.seed, 0) ?? null,
      runId: v["run-id"] ?? null,
      shard: shardFlag(v.shard),
      startAt: v["start-at"] ?? null,
      apiKeyEnv: v["api-key-env"],
      retryFile: v.retry ?? null,
      timeoutsFile: v.timeouts ?? null,
      maxSendLagMs: numberFlag("max-send-lag-ms", v["max-send-lag-ms"], 0),
      maxInFlight: numberFlag("max-in-flight", v["max-in-flight"], 1),
      lagLimitMs: numberFlag("lag-limit-ms", v["lag-limit-ms"], 0),
      saveOutputs: v["save-outputs"] ?? false,
      httpClient: client as HttpClientKind | undefined,
      progress: !v["no-progress"],
      serverTimeline: !v["no-server-timeline"],
    });
    console.log(formatRunReport(manifest, requests));
    console.log(`run written to ${dir}`);
    return 0;
  });
}
