/**
 * Operator intake drills on the run clock: at each drill's stop (and resume)
 * time the runner calls the operator hook — an HTTP POST on loopback or a
 * command — and records what came back in run.json `drills`. Calls run
 * beside dispatch and never hold it up.
 *
 * @module
 */
import type { DrillCall, DrillRecord, IntakeDrill, IntakeHook } from "../schema/mod.ts";
import type { Clock } from "./clock.ts";

/** Where a drill's calls are made from. */
export interface DrillContext {
  clock: Clock;
  /** A command hook runs in this folder (the plan file's). */
  planDir: string;
}

/** Drills in progress; `finish` ends them. */
export interface RunningDrills {
  /**
   * Cancels the calls whose time has not come (recorded as never made) and
   * waits for calls in progress (each bounded by its `timeout_ms`).
   */
  finish(): Promise<DrillRecord[]>;
}

/**
 * The hook in words, as run.json and `deno task plan` show it.
 *
 * @example
 * ```ts
 * import { describeHook } from "./intake_drill.ts";
 * import assert from "node:assert/strict";
 * assert.equal(describeHook({ url: "http://127.0.0.1:9/admin/intake" }), "POST http://127.0.0.1:9/admin/intake");
 * assert.equal(describeHook({ command: ["./intake.sh", "--quiet"] }), "command ./intake.sh --quiet <stop|resume>");
 * ```
 */
export function describeHook(hook: IntakeHook): string {
  return "url" in hook ? `POST ${hook.url}` : `command ${hook.command.join(" ")} <stop|resume>`;
}

/** One line per drill for `deno task plan`. */
export function describeDrills(drills: readonly IntakeDrill[] | undefined): string[] {
  return (drills ?? []).map((d) =>
    `drill ${d.name}: stop intake at ${d.stop_at_s} s${
      d.resume_at_s === undefined ? " (no resume)" : `, resume at ${d.resume_at_s} s`
    } via ${describeHook(d.hook)} (timeout ${d.timeout_ms} ms)`
  );
}

/** Starts every drill's timers on the run clock (call just after ms 0). */
export function startDrills(drills: readonly IntakeDrill[], ctx: DrillContext): RunningDrills {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const inProgress: Promise<void>[] = [];
  const records = drills.map((d) => {
    const calls: DrillCall[] = [];
    const plan = (action: DrillCall["action"], atS: number) => {
      const call: DrillCall = {
        action,
        planned_ms: atS * 1000,
        called_ms: null,
        answered_ms: null,
        status: null,
        ok: false,
        error: "not called: the run ended before its time",
      };
      calls.push(call);
      // A timer may fire a fraction of a millisecond before the run clock reaches its time: then it waits again, so a
      // hook is never called before its planned time.
      const arm = () => {
        const t = setTimeout(() => {
          timers.delete(t);
          if (ctx.clock.now() < call.planned_ms) arm();
          else inProgress.push(callHook(d, action, call, ctx));
        }, Math.max(0, Math.ceil(call.planned_ms - ctx.clock.now())));
        timers.add(t);
      };
      arm();
    };
    plan("stop", d.stop_at_s);
    if (d.resume_at_s !== undefined) plan("resume", d.resume_at_s);
    return { kind: d.kind, name: d.name, hook: describeHook(d.hook), calls };
  });
  return {
    async finish() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(inProgress);
      return records;
    },
  };
}

/** Makes one call and fills `call`; never throws (a failure is recorded in `error`). */
async function callHook(d: IntakeDrill, action: DrillCall["action"], call: DrillCall, ctx: DrillContext) {
  call.called_ms = ctx.clock.now();
  call.error = null;
  const signal = AbortSignal.timeout(d.timeout_ms);
  try {
    if ("url" in d.hook) {
      const res = await fetch(d.hook.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ accept: action === "resume" }),
        signal,
      });
      const text = await res.text();
      call.status = res.status;
      call.ok = res.ok;
      if (!res.ok) call.error = `HTTP ${res.status}: ${text.slice(0, 200)}`;
    } else {
      const [cmd, ...args] = d.hook.command;
      const out = await new Deno.Command(cmd!, {
        args: [...args, action],
        cwd: ctx.planDir,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
        signal,
      }).output();
      call.status = out.code;
      call.ok = out.success;
      if (!out.success) {
        const tail = new TextDecoder().decode(out.stderr).trim().slice(-200);
        call.error = signal.aborted
          ? `no exit within ${d.timeout_ms} ms (killed)`
          : `exit code ${out.code}${tail ? `: ${tail}` : ""}`;
      }
    }
    call.answered_ms = ctx.clock.now();
  } catch (e) {
    call.ok = false;
    call.status ??= null;
    call.error = signal.aborted ? `no answer within ${d.timeout_ms} ms` : describeError(e);
  }
}

function describeError(e: unknown): string {
  if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
    return `not permitted: ${(e as Error).message} (a command hook needs the runner started with --allow-run)`;
  }
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
