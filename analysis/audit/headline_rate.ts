/**
 * The rate and count headlines of a peer tool (request rate, output-token rate, counts): recomputed under the tool's
 * window and denominator, moved to the offered denominator, and the window/denominator choices searched.
 *
 * @module
 */
import type { HeadlineChoice, HeadlineRow, HeadlineSource, Pick } from "./headline_types.ts";
import type { HeadlineRecipe } from "./tool_rules.ts";

function windowSeconds(rows: HeadlineRow[], from: "send" | "schedule"): number | null {
  const starts = rows.map((r) => from === "send" ? r.sent_ms : r.scheduled_ms).filter((x): x is number => x !== null);
  const ends = rows.map((r) => r.completed_ms).filter((x): x is number => x !== null);
  if (!starts.length || !ends.length) return null;
  return (Math.max(...ends) - Math.min(...starts)) / 1000;
}

/** A headline value of the tool's (same stage, else run-level) by key. */
function toolValue(src: HeadlineSource, keys: string[], stage: string | null): number | null {
  for (const k of keys) {
    const h = src.headlines.find((x) => x.key === k && (x.stage === stage || x.stage === null));
    if (h?.value !== undefined && h.value !== null) return h.value;
  }
  return null;
}

/** The headline against the tool's own other numbers (its totals and duration). */
export function consistencyChecks(
  src: HeadlineSource,
  recipe: HeadlineRecipe,
  stage: string | null,
  st: HeadlineSource["stages"][number] | null,
  pick: Pick,
): HeadlineChoice[] {
  const ok = st?.totals.ok ?? null;
  const secs = st?.tool_duration_s ?? null;
  if (recipe.kind === "request_rate" && ok !== null && secs) {
    return [pick(`the tool's successful total / the tool's duration = ${ok} / ${secs} s`, ok / secs, ok)];
  }
  if (recipe.kind === "count") {
    if (recipe.of === "failed") {
      const err = st?.totals.error ?? null;
      return err === null ? [] : [pick("the tool's error total", err, err)];
    }
    if (ok !== null) return [pick("the tool's successful total", ok, ok)];
  }
  if (recipe.kind === "output_token_rate" && secs) {
    const tokens = toolValue(src, ["total_output_tokens", "records.total_osl.avg", "total_osl.avg"], stage);
    if (tokens !== null) {
      return [pick(`the tool's output tokens / its duration = ${tokens} / ${secs} s`, tokens / secs, ok)];
    }
  }
  return [];
}

/**
 * The window implied by the tool's other rate over the same window (`rules.window_key`): that rate's amount over the
 * records (successful requests, or their output tokens) / its value (per minute → × 60). Null without the key.
 */
function impliedWindow(src: HeadlineSource, recipe: HeadlineRecipe, stage: string | null, okRows: HeadlineRow[]) {
  const key = recipe.rules.window_key;
  if (key === undefined) return null;
  const other = toolValue(src, [key], stage);
  if (!other) return null;
  const tokenRate = recipe.kind === "request_rate";
  const amount = tokenRate ? okRows.reduce((a, r) => a + (r.output_tokens ?? 0), 0) : okRows.length;
  const secs = amount / other * (tokenRate ? 1 : 60);
  const what = tokenRate ? "output tokens of successful requests" : "successful requests × 60";
  return { name: `implied by the tool's ${key} (${what} / ${other})`, secs };
}

/** A rate or count headline from the rows: under the tool's rules, under ours, and every choice searched. */
export function rateAudit(
  recipe: HeadlineRecipe,
  src: HeadlineSource,
  stage: string | null,
  rows: HeadlineRow[],
  okRows: HeadlineRow[],
  toolSecs: number | null,
  pick: Pick,
  goodputUnder: { value: number | null; policy: string } | undefined,
) {
  const failedCount = recipe.kind === "count" && recipe.of === "failed";
  const amount = (rs: HeadlineRow[]) =>
    recipe.kind === "output_token_rate" ? rs.reduce((a, r) => a + (r.output_tokens ?? 0), 0) : rs.length;
  const perSeconds = recipe.rules.per_seconds ?? 1;
  const implied = impliedWindow(src, recipe, stage, okRows);
  // A source of durations only places every request at 0: a window over its rows would be the longest request.
  const windows: [string, number | null][] = [
    ["the tool's duration", toolSecs],
    ...(src.absolute_times ? [["first send → last response", windowSeconds(rows, "send")] as [string, number]] : []),
    ...(src.absolute_times && src.scheduled_from === "schedule"
      ? [["first scheduled → last response", windowSeconds(rows, "schedule")] as [string, number]]
      : []),
    ...(implied ? [[implied.name, implied.secs] as [string, number]] : []),
  ];
  const rate = (rs: HeadlineRow[], secs: number | null) =>
    recipe.kind === "count" ? amount(rs) : secs ? amount(rs) / secs * perSeconds : null;
  const w = recipe.rules.window;
  const toolWindow: [string, number | null] = w === "tool_duration"
    ? windows[0]!
    : w === "implied_by_tool_rate"
    ? (implied
      ? [implied.name, implied.secs]
      : [`implied by the tool's ${recipe.rules.window_key}: not in the files`, null])
    : windows[1] ?? ["first send → last response: the source has durations only", null];
  const per = perSeconds === 60 ? " × 60" : "";
  const failedRows = rows.filter((r) => !r.ok);
  const recomputed = failedCount
    ? pick("records the tool counted as errors", failedRows.length, failedRows.length)
    : pick(
      recipe.kind === "count"
        ? `successful requests`
        : `${recipe.kind === "output_token_rate" ? "output tokens of successful requests" : "successful requests"} / ${
          toolWindow[0]
        } (${toolWindow[1]} s)${per}`,
      rate(okRows, toolWindow[1]),
      okRows.length,
    );
  const choices: HeadlineChoice[] = [];
  const dens = [
    ...(failedCount ? [["records with an error", failedRows] as const] : [["successful", okRows] as const]),
    ["every record (offered)", rows] as const,
  ];
  for (const [den, rs] of dens) {
    for (const [wn, secs] of recipe.kind === "count" ? [windows[0]!] : windows) {
      choices.push(
        pick(`denominator ${den}${recipe.kind === "count" ? "" : `, window ${wn}`}`, rate(rs, secs), rs.length),
      );
    }
  }
  const ours = [
    failedCount
      ? pick(
        "requests that did not succeed (failed and cancelled), of every record offered",
        failedRows.length,
        rows.length,
      )
      : pick(
        `over every record offered (failed and cancelled included) / ${toolWindow[0]}`,
        rate(rows, toolWindow[1]),
        rows.length,
      ),
  ];
  if (recipe.kind === "request_rate") {
    ours.push(
      goodputUnder
        ? pick(`accepted goodput under ${goodputUnder.policy} (offered denominator)`, goodputUnder.value, rows.length)
        : pick("accepted goodput: no SLO policy given (--slo, the claim's slo or the run's own)", null, null),
    );
  }
  return { recomputed, ours, choices };
}
