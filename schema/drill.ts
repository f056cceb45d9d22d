import { z } from "zod";

/** Whether `host` (a URL's hostname) is a loopback name or address. */
function loopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** An operator hook: an HTTP POST on loopback, or a command. */
export const IntakeHook = z.union([
  z.object({
    /**
     * `http://` on loopback (127.x, localhost, [::1]), no credentials: the runner POSTs `{"accept": false}` to stop
     * intake and `{"accept": true}` to resume it.
     */
    url: z.string().superRefine((u, ctx) => {
      let url: URL;
      try {
        url = new URL(u);
      } catch {
        ctx.addIssue({ code: "custom", message: `not a URL: ${u}` });
        return;
      }
      if (url.protocol !== "http:") ctx.addIssue({ code: "custom", message: "the hook must be http://" });
      if (!loopbackHost(url.hostname)) {
        ctx.addIssue({
          code: "custom",
          message: `${url.hostname}: the hook must be on loopback (127.x, localhost, ::1)`,
        });
      }
      if (url.username || url.password) ctx.addIssue({ code: "custom", message: "credentials in the hook URL" });
    }),
  }).strict(),
  z.object({
    /** argv of a command the runner runs with `stop` or `resume` appended, in the plan file's folder. */
    command: z.array(z.string().min(1)).min(1),
  }).strict(),
]);
export type IntakeHook = z.infer<typeof IntakeHook>;

/**
 * An intake drill: at `stop_at_s` of the run clock the runner calls the
 * operator hook to stop the target accepting new tasks, and at `resume_at_s`
 * (if given) to resume it. The calls never hold up dispatch.
 */
export const IntakeDrill = z.object({
  kind: z.literal("intake_stop"),
  name: z.string().min(1).default("intake-stop"),
  /** Run time of the stop call, seconds after ms 0. */
  stop_at_s: z.number().nonnegative().max(86_400),
  /** Run time of the resume call; absent = intake stays stopped to the end of the run. */
  resume_at_s: z.number().positive().max(86_400).optional(),
  hook: IntakeHook,
  /** Longest wait for the hook's answer (HTTP response, command exit); later is a failed call. @default 5000 */
  timeout_ms: z.number().int().positive().max(600_000).default(5_000),
}).strict().refine((d) => d.resume_at_s === undefined || d.resume_at_s > d.stop_at_s, {
  message: "resume_at_s must be after stop_at_s",
  path: ["resume_at_s"],
});
export type IntakeDrill = z.infer<typeof IntakeDrill>;

/** Problems of a plan's drills as a whole: each must start after the previous one resumed. */
export function drillOrderIssues(drills: readonly IntakeDrill[]): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  for (let i = 1; i < drills.length; i++) {
    const prev = drills[i - 1]!, cur = drills[i]!;
    if (prev.resume_at_s === undefined || cur.stop_at_s < prev.resume_at_s) {
      out.push({
        path: ["drills", i, "stop_at_s"],
        message: prev.resume_at_s === undefined
          ? `drill ${i - 1} never resumes intake: no drill can follow it`
          : `${cur.stop_at_s} s is before drill ${i - 1} resumes intake (${prev.resume_at_s} s)`,
      });
    }
  }
  return out;
}

/** One hook call of a drill, as the runner made it (run.json `drills[].calls`). */
export const DrillCall = z.object({
  action: z.enum(["stop", "resume"]),
  /** The planned run time, ms. */
  planned_ms: z.number().nonnegative(),
  /** When the runner made the call (run ms); null = never made (the run ended before its time). */
  called_ms: z.number().nullable(),
  /** When the hook answered (HTTP response read, command exited); null = no answer (error, timeout, never made). */
  answered_ms: z.number().nullable(),
  /** The HTTP status, or the command's exit code; null when none came. */
  status: z.number().int().nullable(),
  /** A 2xx status or exit code 0. */
  ok: z.boolean(),
  /** What went wrong; null when ok. */
  error: z.string().nullable(),
}).strict();
export type DrillCall = z.infer<typeof DrillCall>;

/** What happened to one drill of the plan (run.json `drills`, absent when the plan has none). */
export const DrillRecord = z.object({
  kind: z.literal("intake_stop"),
  name: z.string(),
  /** The hook in words: `POST <url>` or the command line. */
  hook: z.string(),
  calls: z.array(DrillCall),
}).strict();
export type DrillRecord = z.infer<typeof DrillRecord>;
