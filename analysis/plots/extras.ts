/**
 * Report inputs computed elsewhere (a knee analysis, a priced ledger, a route
 * comparison, a recovery analysis), read from one JSON file and checked with
 * zod against the figures' input interfaces.
 *
 * @module
 */
import { z } from "zod";
import { loadJsonFile } from "../../schema/load.ts";

const rps = z.number().nonnegative();

/** The extras file: every key optional. */
export const ReportExtras = z.object({
  /** Knee and limits to mark on this run's goodput-vs-load figure. */
  knee: z.object({
    knee_rps: rps.nullable(),
    knee_signal: z.string().optional(),
    /** Why there is no knee (knee_rps null), for the figure's title and the report's headline. */
    knee_note: z.string().optional(),
    limits: z.array(z.object({ headroom: z.number().min(0).max(1), rps }).strict()).default([]),
    /** The headroom the user chose (its limit is the headline's); null or absent: none chosen. */
    headroom: z.number().min(0).max(1).nullable().optional(),
  }).strict().optional(),
  ledger: z.object({
    currency: z.string().min(1),
    components: z.array(z.object({ name: z.string(), amount: z.number(), note: z.string().optional() }).strict())
      .min(1),
    accepted_tasks: z.number().int().nonnegative(),
    disclosure: z.string(),
  }).strict().optional(),
  routes: z.object({
    currency: z.string().min(1),
    disclosure: z.string(),
    routes: z.array(
      z.object({
        route: z.string(),
        accepted_goodput: z.number().nullable(),
        acceptance_rate: z.number().min(0).max(1).nullable(),
        cost_per_accepted_task: z.number().nullable(),
        n: z.number().int().nonnegative(),
      }).strict(),
    ).min(1),
  }).strict().optional(),
  outages: z.array(
    z.object({ start_ms: z.number().nonnegative(), end_ms: z.number().nonnegative(), label: z.string() }).strict(),
  ).optional(),
}).strict();
export type ReportExtras = z.infer<typeof ReportExtras>;

/** Reads and checks an extras file; every problem is reported at once, naming the file and field. */
export function loadReportExtras(file: string): Promise<ReportExtras> {
  return loadJsonFile(file, ReportExtras, "report extras");
}
