/**
 * The checks that the shard folders read as one run are one whole run: each
 * folder's name agrees with its run.json `plan.shard`, one shard count N,
 * every index 0..N−1 present once, one run id, one schedule (the same plan
 * spec, seed included, and workload, from which every shard computes the
 * full schedule); no request id in two shards is checked by `_distinct_ids.ts`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";

/** Folder name of shard i of N, as the runner writes it. */
export const SHARD_DIR = /^shard-(\d+)-of-(\d+)$/;

/** Which shards of the run were read. */
export interface ShardSet {
  /** N, the run's shard count (run.json `plan.shard.count`). */
  count: number;
  /** The shard indices read, ascending. */
  present: number[];
  /** The shard indices not found: empty unless the analysis was asked to accept a partial set. */
  missing: number[];
}

/** The partial-set rule, stated in the disclosure and the docs. */
export const PARTIAL_SHARDS_RULE =
  "PARTIAL SHARD SET: only the shards present were read; offered, every other count and the goodput cover those " +
  "shards' requests alone (each shard holds the schedule's arrivals with index ≡ i mod N, about 1/N of the load), " +
  "while measurement_seconds is the whole window, so a rate here is the present shards' share, not the run's";

const label = (i: number, n: number) => `shard-${i}-of-${n}`;

/** What a shard's full schedule is computed from: sha256 of run.json `plan.spec` (seed included) and `workload.sha256`. */
function scheduleKey(m: RunManifest): string {
  return createHash("sha256").update(JSON.stringify([m.plan.spec, m.workload.sha256])).digest("hex");
}

/**
 * Every problem of a set of shard folders and their manifests (empty when
 * they are one whole run, or, with `allowPartial`, one run missing shards),
 * and the set itself.
 */
export function shardSetProblems(
  path: string,
  dirs: string[],
  manifests: RunManifest[],
  allowPartial: boolean,
): { problems: string[]; set: ShardSet } {
  const problems: string[] = [];
  const where = dirs.map((d, k) =>
    `${basename(d)} (${manifests[k]!.plan.shard.index} of ${manifests[k]!.plan.shard.count})`
  );
  for (const [k, dir] of dirs.entries()) {
    const { index, count } = manifests[k]!.plan.shard;
    const file = join(dir, "run.json");
    if (index >= count) problems.push(`${file}: plan.shard.index ${index} is not below plan.shard.count ${count}`);
    const m = SHARD_DIR.exec(basename(dir));
    if (m && (Number(m[1]) !== index || Number(m[2]) !== count)) {
      problems.push(
        `${file}: plan.shard is ${index} of ${count}, but its folder is ${basename(dir)} (a shard copied or renamed?)`,
      );
    }
  }
  const counts = [...new Set(manifests.map((m) => m.plan.shard.count))];
  if (counts.length > 1) problems.push(`${path}: shards disagree on the shard count N: ${where.join(", ")}`);
  const ids = [...new Set(manifests.map((m) => m.run_id))];
  if (ids.length > 1) problems.push(`${path}: shards belong to different runs: ${ids.join(", ")}`);
  // Every shard computes the full schedule from the plan (seed included) and the workload and keeps its share, so
  // those are what must agree: each shard's schedule.csv (plan.schedule_sha256) holds its own share only.
  const schedules = manifests.map((m) => scheduleKey(m));
  if (new Set(schedules).size > 1) {
    const each = dirs.map((d, k) => `${basename(d)} ${schedules[k]!.slice(0, 12)}`);
    problems.push(
      `${path}: shards have different schedules (sha256 of run.json plan.spec and workload.sha256): ${each.join(", ")}`,
    );
  }
  const byIndex = new Map<number, string[]>();
  for (const [k, dir] of dirs.entries()) {
    const i = manifests[k]!.plan.shard.index;
    byIndex.set(i, [...(byIndex.get(i) ?? []), basename(dir)]);
  }
  for (const [i, folders] of byIndex) {
    if (folders.length > 1) problems.push(`${path}: shard ${i} is in ${folders.length} folders: ${folders.join(", ")}`);
  }
  const count = Math.max(...counts);
  const present = [...byIndex.keys()].sort((a, b) => a - b);
  const missing = counts.length === 1 ? Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i)) : [];
  if (missing.length && !allowPartial) {
    problems.push(
      `${path}: ${missing.length} of ${count} shards missing: ${missing.map((i) => label(i, count)).join(", ")}; ` +
        "the analysis would cover only part of the run (allowPartialShards, or --partial-shards on the CLIs, " +
        "analyses the present shards alone, with a warning)",
    );
  }
  return { problems, set: { count, present, missing } };
}

/** Throws one {@linkcode InputError} naming every problem of {@linkcode shardSetProblems}. */
export function checkShardSet(path: string, dirs: string[], manifests: RunManifest[], allowPartial: boolean): ShardSet {
  const { problems, set } = shardSetProblems(path, dirs, manifests, allowPartial);
  if (problems.length) throw new InputError(`${path}: not one whole run`, problems);
  return set;
}

/** The loud warning of a partial set (null for a whole one). */
export function partialWarning(path: string, set: ShardSet): string | null {
  if (!set.missing.length) return null;
  const names = set.missing.map((i) => label(i, set.count)).join(", ");
  return `${path}: PARTIAL ANALYSIS: ${set.missing.length} of ${set.count} shards missing (${names}); ` +
    `counts and goodput cover shards ${set.present.join(", ")} only, not the whole run`;
}
