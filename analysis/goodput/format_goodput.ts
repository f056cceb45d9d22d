import { fixed, sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import { FAILURE_REASONS as FAILURE_ORDER, GATES as GATE_ORDER } from "../../schema/slo.ts";
import type { GoodputResult, GoodputRow } from "./goodput.ts";
import { countText } from "./accepted_estimate.ts";
import { modeLabel, modeSloLines } from "./service_modes.ts";

function table(title: string, label: string, rows: { name: string; row: GoodputRow }[]): string[] {
  const head = [
    label,
    "offered",
    "sent",
    "completed",
    "accepted",
    "seconds",
    "goodput/s",
    "accept",
    "miss",
    "failures",
  ];
  const body = rows.map(({ name, row }) => [
    name,
    String(row.offered),
    String(row.sent),
    String(row.completed),
    countText(row.accepted, row.estimate),
    fixed(row.measurement_seconds, 1),
    fixed(row.accepted_goodput, 4),
    row.estimate
      ? `${fixed(row.acceptance_rate, 4)} [${fixed(row.estimate.acceptance_rate_low, 4)}, ${
        fixed(row.estimate.acceptance_rate_high, 4)
      }]`
      : fixed(row.acceptance_rate, 4),
    fixed(row.slo_miss_rate, 4),
    FAILURE_ORDER.filter((f) => row.failures[f] > 0).map((f) =>
      `${f}=${Number.isInteger(row.failures[f]) ? row.failures[f] : `≈${fixed(row.failures[f], 1)}`}`
    ).join(" ") || "-",
  ]);
  // The label and the failures left, the numbers right.
  return [title, ...textTable(head, body, { left: 1, lastLeft: true })];
}

/** A production recording's sampling, estimate of all user actions and stage windows' observed rates (none else). */
function productionLines(d: GoodputResult["disclosure"]): string[] {
  const p = d.production;
  if (!p) return [];
  const r = p.sampling.rate;
  const windows = p.windows.map((w) =>
    `${w.stage} ${sig(w.seconds)} s ${w.sampled_actions} actions ${sig(w.observed_rps)}/s` +
    (r < 1 ? ` (≈ ${sig(w.estimated_rps)}/s all)` : "")
  );
  return [
    `production recording: app ${p.app.name} ${p.app.version}; sampling rate ${r} (${p.sampling.rule}); ` +
    `${d.n.overall} sampled user actions in the window${
      r < 1 ? ` ≈ ${sig(p.estimated_user_actions)} user actions in all (offered / ${r}: an estimate, not a count)` : ""
    }`,
    `stage windows (observed rate = sampled actions / window seconds): ${windows.join("; ")}`,
  ];
}

/** Options of {@linkcode formatGoodput}. */
export interface FormatGoodputOptions {
  /** The first lines (`runVerdicts(...).lines`). @default the incomplete-run headline, if any */
  verdicts?: string[];
  /** Lines after the verdicts, before the disclosure (the CLI's policy line). @default [] */
  header?: string[];
}

/**
 * Renders a goodput result as plain aligned text: the verdicts first (an
 * incomplete run says so in its first line), the disclosure, then the
 * overall, by-class, by-stage and by-service-mode tables.
 *
 * @example The disclosure comes before the numbers
 * ```ts ignore
 * console.log(formatGoodput(goodput(run, policy)));
 * ```
 */
export function formatGoodput(result: GoodputResult, options: FormatGoodputOptions = {}): string {
  const d = result.disclosure;
  const verdicts = options.verdicts ?? (d.run_end.headline ? [d.run_end.headline] : []);
  const slo = Object.entries(d.slo_rules).flatMap(([c, rule]) => {
    const s = c === "(any other class)" ? d.slo.default : d.slo.classes[c];
    return [`  ${rule}`, ...(s ? modeSloLines(s.modes, s, "    ") : [])];
  });
  const na = GATE_ORDER.filter((g) => d.gates_not_applicable.overall[g] > 0)
    .map((g) => `${g} ${d.gates_not_applicable.overall[g]}`);
  const out = [
    ...verdicts,
    ...(options.header ?? []),
    `run ${d.run_id} (${d.files.dir}; ${d.files.format}${
      d.files.partial
        ? `, PARTIAL: ${d.files.shards} of ${d.files.partial.shard_count} shards, missing ${
          d.files.partial.missing_shards.join(", ")
        }`
        : d.files.shards > 1
        ? `, ${d.files.shards} shards`
        : ""
    }; read ${d.files.read.join(", ")})`,
    ...productionLines(d),
    `denominator: ${d.denominator}`,
    `window: ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}`,
    "inclusion rules:",
    ...d.inclusion_rules.map((r) => `  - ${r}`),
    `TTFT: ${d.ttft_definition}`,
    `TPOT: ${d.tpot_definition}`,
    `streaming: ${d.streaming_rule}`,
    `gates: ${d.gate_rule}`,
    "SLO per class (as applied in the window):",
    ...slo,
    ...(Object.keys(d.slo.modes).length ? ["  (every class that does not declare the mode itself):"] : []),
    ...modeSloLines(d.slo.modes, null, "    "),
    `gates passed as n/a (completed requests whose case does not define the gate): ${na.join(", ") || "none"}`,
    ...d.warnings.map((w) => `WARNING: ${w}`),
    "",
    ...table("overall", "", [{ name: "all", row: result.overall }]),
    "",
    ...table("by class", "class", result.by_class.map((r) => ({ name: r.class, row: r }))),
    "",
    ...table("by stage", "stage", result.by_stage.map((r) => ({ name: r.stage, row: r }))),
    "",
    ...table(
      "by service mode (of the final answer; (none) = none announced; goodput over the whole window)",
      "mode",
      result.by_mode.map((r) => ({ name: modeLabel(r.mode), row: r })),
    ),
  ];
  return out.join("\n");
}
