/**
 * The command line of each worker of `--workers`: the same Deno, the same
 * project configuration, the permissions this process holds, and the run's
 * own flags with the worker's shard.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { CommandSpec, FlagValues } from "../../lib/command.ts";

/** The runner CLI every worker runs. */
export const RUN_SCRIPT = fileURLToPath(new URL("../cli/run.ts", import.meta.url));
/** The project's deno.json: the workers read the same import map whatever their working folder. */
export const DENO_CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
/** The V8 flags of the `run` task in deno.json (a young generation large enough that a fast run rarely collects). */
export const RUN_V8_FLAGS = "--v8-flags=--max-semi-space-size=64";

/** The flags the parent sets for each worker itself: never passed through. */
const PARENT_FLAGS = new Set(["workers", "shard", "run-id", "start-at", "no-progress", "as-worker"]);

/** Shard `i/N` of a run split over `w` workers: worker k runs shard i·w + k of N·w. */
export function workerShards(shard: { index: number; count: number }, w: number): { index: number; count: number }[] {
  return Array.from({ length: w }, (_, k) => ({ index: shard.index * w + k, count: shard.count * w }));
}

/**
 * The flags a worker gets from the parent's parsed values: every flag with a
 * value (a default written out changes nothing), but those the parent sets
 * per worker.
 *
 * @example The run's flags, without the parent's own
 * ```ts
 * import { passedFlags } from "./worker_args.ts";
 * import assert from "node:assert/strict";
 * const spec = {
 *   name: "x", invocation: "x", summary: "x", examples: [],
 *   flags: {
 *     plan: { type: "string", arg: "F", description: "" },
 *     workers: { type: "string", arg: "N", description: "" },
 *     save: { type: "boolean", description: "" },
 *     "max-in-flight": { type: "number", arg: "N", rule: {}, default: 10, description: "" },
 *     "route-url": { type: "string", arg: "U", multiple: true, description: "" },
 *   },
 * } as const;
 * assert.deepEqual(
 *   passedFlags(spec, { plan: "p.json", workers: "2", save: true, "max-in-flight": 10, "route-url": ["a=u", "b=v"] }),
 *   ["--plan", "p.json", "--save", "--max-in-flight", "10", "--route-url", "a=u", "--route-url", "b=v"],
 * );
 * ```
 */
export function passedFlags<S extends CommandSpec>(spec: S, values: FlagValues<S["flags"]>): string[] {
  const out: string[] = [];
  for (const [name, f] of Object.entries(spec.flags)) {
    if (PARENT_FLAGS.has(name)) continue;
    const v = (values as Record<string, unknown>)[name];
    if (f.type === "boolean") {
      if (v === true) out.push(`--${name}`);
    } else if (Array.isArray(v)) { for (const item of v) out.push(`--${name}`, String(item)); }
    else if (v !== undefined) out.push(`--${name}`, String(v));
  }
  return out;
}

/** The kinds of permission passed on as this process holds them (net is passed as the run's allow-list). */
const WHOLE = ["read", "write", "env", "sys", "run", "ffi"] as const;

/**
 * This process's permissions as `deno run` flags: each held for everything is
 * passed whole; net as exactly the run's allow-list (runner/net_allow.ts:
 * its targets and their proxies, `host:port`), those of them this process may
 * reach — never more, even when this process holds net whole. A worker can
 * then do what this process could, and reach nothing the run does not name.
 */
export function heldPermissions(allowHosts: readonly string[]): string[] {
  const flags = WHOLE.filter((name) => Deno.permissions.querySync({ name }).state === "granted").map((n) =>
    `--allow-${n}`
  );
  const hosts = [...new Set(allowHosts)].filter((host) =>
    Deno.permissions.querySync({ name: "net", host }).state === "granted"
  );
  return hosts.length ? [...flags, `--allow-net=${hosts.join(",")}`] : flags;
}

/** Everything after the Deno executable that starts one worker. */
export function workerArgs(o: {
  permissions: readonly string[];
  flags: readonly string[];
  shard: { index: number; count: number };
  runId: string;
}): string[] {
  return [
    "run",
    "--config",
    DENO_CONFIG,
    RUN_V8_FLAGS,
    ...o.permissions,
    RUN_SCRIPT,
    ...o.flags,
    "--shard",
    `${o.shard.index}/${o.shard.count}`,
    "--run-id",
    o.runId,
    "--as-worker",
  ];
}
