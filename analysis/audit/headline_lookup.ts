/**
 * Finding a claim's headline among those an import holds. The key is the tool's as the import keeps it
 * (`benchmarks[0].metrics.requests_per_second.successful.mean`, `records.ttft.p99`); the short forms users write —
 * without GuideLLM's `benchmarks[i].` or AIPerf's `records.` — name the same headline, with `stage` picking the
 * benchmark. A key the import does not hold is an input error that lists what it does hold.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { ImportedHeadline } from "../../schema/imported_manifest.ts";

/** The prefixes a tool's stored key carries that its short form leaves out. */
const PREFIX = /^(?:benchmarks\[\d+\]\.|records\.)/;
const bare = (key: string) => key.replace(PREFIX, "");

/** The headline a claim names, or null when the import holds none under that key (or its short form). */
export function findHeadline(
  headlines: readonly ImportedHeadline[],
  key: string,
  stage: string | null,
): ImportedHeadline | null {
  const atStage = (h: ImportedHeadline) => stage === null || h.stage === stage || h.stage === null;
  const exact = headlines.filter((h) => h.key === key && atStage(h));
  if (exact.length) return exact.find((h) => h.stage === stage) ?? exact[0]!;
  const short = headlines.filter((h) => bare(h.key) === bare(key) && atStage(h));
  if (short.length === 1) return short[0]!;
  return short.find((h) => h.stage === stage) ?? null;
}

/** The stages under which the import holds `key` (or its short form): more than one needs the claim's `stage`. */
export function stagesOf(headlines: readonly ImportedHeadline[], key: string): (string | null)[] {
  return [...new Set(headlines.filter((h) => bare(h.key) === bare(key)).map((h) => h.stage))];
}

/**
 * The error for a claim whose headline the import does not hold: one line naming the claim's key and stage and
 * listing the headlines that exist — those of the same statistic first (the key's last part), then the rest, at most
 * `max` in all.
 */
export function missingHeadline(
  headlines: readonly ImportedHeadline[],
  key: string,
  stage: string | null,
  where: string,
  max = 12,
): InputError {
  const keys = [...new Set(headlines.map((h) => h.key))];
  const stat = key.split(".").at(-1) ?? key;
  const name = bare(key).split(".")[0] ?? "";
  const rank = (k: string) => (k.endsWith(`.${stat}`) ? 0 : 2) + (name && k.includes(name) ? 0 : 1);
  const shown = [...keys].sort((a, b) => rank(a) - rank(b) || keys.indexOf(a) - keys.indexOf(b)).slice(0, max);
  const stages = stagesOf(headlines, key);
  const at = stage === null ? "" : ` at stage "${stage}"`;
  const other = stages.length ? ` (it holds it at stage ${stages.map((s) => s ?? "all").join(", ")})` : "";
  const list = keys.length
    ? `; it holds ${keys.length} headline(s): ${shown.join(", ")}${keys.length > shown.length ? ", …" : ""}`
    : "; it holds no headline (import the tool's summary file with its per-request file)";
  return new InputError(`${where}: headline "${key}"${at} is not in the import${other}${list}`);
}
