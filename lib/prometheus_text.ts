/**
 * A reader of the Prometheus text exposition format (version 0.0.4, what llama.cpp's `llama-server --metrics`, vLLM and
 * most servers answer at `GET /metrics`): one sample per line, `name{label="value",…} value [timestamp]`, with
 * `# HELP` / `# TYPE` comments. A line that is not a valid sample or comment is dropped and counted, never thrown:
 * one bad line of a server's answer costs that line, not the reading.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePrometheusText, sumOf } from "./prometheus_text.ts";
 * const t = parsePrometheusText('# TYPE q gauge\nq{engine="0"} 3\nq{engine="1"} 4\nbroken line\n');
 * assert.equal(sumOf(t, "q"), 7);
 * assert.equal(t.dropped, 1);
 * ```
 * @module
 */

/** One sample: a metric name, its labels and its value. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: its samples, each metric's `# TYPE`, and the lines dropped. */
export interface PromText {
  samples: PromSample[];
  /** Metric name → its declared type (`counter`, `gauge`, `histogram`, …). */
  types: Record<string, string>;
  /** Lines that were neither a valid sample, a comment nor blank. */
  dropped: number;
  /** The first dropped line (at most 120 characters), for a message; null when none was. */
  firstDropped: string | null;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** A sample value: a float, `NaN`, `+Inf` or `-Inf`; null when it is none of them. */
export function promValue(text: string): number | null {
  if (text === "NaN") return NaN;
  if (text === "+Inf" || text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return null;
  return Number(text);
}

/** The labels block after `{`, from `s` at `i`; returns the labels and the index after `}`, or null when malformed. */
function readLabels(s: string, i: number): { labels: Record<string, string>; end: number } | null {
  const labels: Record<string, string> = {};
  for (;;) {
    while (s[i] === " ") i++;
    if (s[i] === "}") return { labels, end: i + 1 };
    const name = LABEL_NAME.exec(s.slice(i))?.[0];
    if (!name) return null;
    i += name.length;
    while (s[i] === " ") i++;
    if (s[i] !== "=" || s[i + 1] !== '"') return null;
    i += 2;
    let value = "";
    for (;;) {
      const c = s[i];
      if (c === undefined) return null;
      if (c === '"') break;
      if (c === "\\") {
        const e = s[i + 1];
        if (e === "n") value += "\n";
        else if (e === "\\" || e === '"') value += e;
        else return null;
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    labels[name] = value;
    i++;
    while (s[i] === " ") i++;
    if (s[i] === ",") i++;
    else if (s[i] !== "}") return null;
  }
}

/** One sample line, or null when it is not one. */
function readSample(line: string): PromSample | null {
  const name = NAME.exec(line)?.[0];
  if (!name) return null;
  let i = name.length;
  let labels: Record<string, string> = {};
  if (line[i] === "{") {
    const l = readLabels(line, i + 1);
    if (!l) return null;
    labels = l.labels;
    i = l.end;
  }
  const rest = line.slice(i).trim().split(/[ \t]+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === "") return null;
  const value = promValue(rest[0]!);
  if (value === null) return null;
  if (rest.length === 2 && !/^-?\d+$/.test(rest[1]!)) return null;
  return { name, labels, value };
}

/** Parses a whole exposition; never throws. */
export function parsePrometheusText(text: string): PromText {
  const out: PromText = { samples: [], types: {}, dropped: 0, firstDropped: null };
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const m = /^#\s+TYPE\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s+(\w+)\s*$/.exec(line);
      if (m) out.types[m[1]!] = m[2]!;
      continue;
    }
    const sample = readSample(line);
    if (sample) out.samples.push(sample);
    else {
      out.dropped++;
      out.firstDropped ??= line.slice(0, 120);
    }
  }
  return out;
}

/** The samples of metric `name` (every label set). */
export function samplesOf(t: PromText, name: string): PromSample[] {
  return t.samples.filter((s) => s.name === name);
}

/**
 * The sum of metric `name` over its label sets (e.g. vLLM's per-engine gauges), or null when the exposition has no
 * sample of it or one of its values is not finite.
 */
export function sumOf(t: PromText, name: string): number | null {
  const s = samplesOf(t, name);
  if (s.length === 0 || s.some((x) => !Number.isFinite(x.value))) return null;
  return s.reduce((a, x) => a + x.value, 0);
}

/** Whether any sample's name starts with `prefix` (how a server is recognised: `llamacpp:`, `vllm:`). */
export function hasPrefix(t: PromText, prefix: string): boolean {
  return t.samples.some((s) => s.name.startsWith(prefix));
}
