import { fixed, sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import type { AcceptedCost } from "./accepted_cost.ts";
import type { QualityLedgerResult } from "./quality_ledger.ts";

/** The interval of a cost per accepted task, for a table cell: `exact`, `[0.006, 0.0125]`, `[0.006, no upper bound]`. */
function interval(c: AcceptedCost): string {
  if (c.level === null) return "exact";
  if (c.cost_per_accepted_task_low === null) return "no finite cost (nothing accepted even at accepted_high)";
  const high = c.unbounded_above ? "no upper bound" : sig(c.cost_per_accepted_task_high);
  return `[${sig(c.cost_per_accepted_task_low)}, ${high}]`;
}

/** After the overall cost per accepted task: its interval and what it rests on; empty for an exact count. */
export function intervalText(c: AcceptedCost): string {
  if (c.level === null) return "";
  return `   (${c.level * 100} % interval ${
    interval(c)
  }, from the accepted count's interval only; prices taken as exact)`;
}

/** An accepted count as a table cell: `16`, `≈15.0 [10.6, 19.4]`. */
function count(c: AcceptedCost): string {
  return c.accepted_low === null || c.accepted_high === null
    ? String(c.accepted)
    : `≈${fixed(c.accepted, 1)} [${fixed(c.accepted_low, 1)}, ${fixed(c.accepted_high, 1)}]`;
}

/**
 * The ledger's section on its denominator under a measured quality source: the rules, then each class's source,
 * method, accepted count and cost per accepted task with its interval, the overall row, and the routes whose cost per
 * accepted task is not given.
 */
export function qualityLedgerLines(q: QualityLedgerResult["quality"], currency: string): string[] {
  const rows = [
    ...q.by_class.map((k) => [
      k.class,
      k.judge === null ? k.source : `${k.source} ${k.judge}`,
      k.method,
      count(k),
      sig(k.total),
      sig(k.cost_per_accepted_task),
      interval(k),
    ]),
    [
      "overall",
      "-",
      "-",
      count(q.overall),
      sig(q.overall.total),
      sig(q.overall.cost_per_accepted_task),
      interval(
        q.overall,
      ),
    ],
  ];
  return [
    `cost per accepted task by quality source (${currency})`,
    ...q.rules.map((s) => `  - ${s}`),
    ...textTable(["class", "quality source", "method", "accepted", "total", "per accepted", "interval"], rows, {
      left: 3,
    }),
    ...(q.by_route.not_given.length
      ? [
        `by route: no accepted count or cost per accepted task for ${q.by_route.not_given.join(", ")}: ` +
        q.by_route.reason,
      ]
      : []),
  ];
}
