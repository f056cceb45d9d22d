/**
 * The misshapen answers of the fault server (test/support/fault_server.ts):
 * an OpenAI stream or body with one field of the wrong type or value, and a
 * timeline with bad rows. Each function takes the well-formed answer and
 * changes exactly what its mode's description says.
 *
 * @module
 */

/** The modes that change one event of the `ok-sse` stream. */
export const MISSHAPEN_SSE = [
  "tool-index-2",
  "tool-index-frac",
  "tool-index-neg",
  "tool-id-number",
  "finish-object",
  "finish-number",
  "content-number",
  "content-object",
  "role-number",
  "delta-string",
  "choices-object",
  "after-done",
  "finish-formula",
] as const;
/** The `finish_reason` of the `finish-formula` mode: a string a spreadsheet would run as a formula. */
export const FORMULA_FINISH = '=HYPERLINK("http://127.0.0.1/x","click")';

/** One of `MISSHAPEN_SSE`. */
export type MisshapenSse = typeof MISSHAPEN_SSE[number];

/** The `ok-sse` events with the one change a misshapen mode makes (see `FAULT_MODES`). */
export function misshapenEvents(mode: MisshapenSse, ok: readonly string[]): string[] {
  const events = [...ok];
  const finishAt = events.length - 3;
  const edit = (k: number, f: (o: { choices: Record<string, unknown>[] }) => unknown) => {
    const o = JSON.parse(events[k]!.slice(6));
    events[k] = `data: ${JSON.stringify(f(o) ?? o)}\n\n`;
  };
  const toolCall = (index: unknown, id: unknown = "call_0") => {
    events.splice(finishAt, 0, events[1]!);
    edit(finishAt, (o) => {
      o.choices[0]!.delta = { tool_calls: [{ index, id, type: "function", function: { name: "f", arguments: "{}" } }] };
    });
    edit(finishAt + 1, (o) => void (o.choices[0]!.finish_reason = "tool_calls"));
  };
  switch (mode) {
    case "tool-index-2":
      toolCall(2);
      break;
    case "tool-index-frac":
      toolCall(0.5);
      break;
    case "tool-index-neg":
      toolCall(-1);
      break;
    case "tool-id-number":
      toolCall(0, 7);
      break;
    case "finish-object":
      edit(finishAt, (o) => void (o.choices[0]!.finish_reason = { why: "stop" }));
      break;
    case "finish-number":
      edit(finishAt, (o) => void (o.choices[0]!.finish_reason = 7));
      break;
    case "content-number":
      edit(1, (o) => void (o.choices[0]!.delta = { content: 42 }));
      break;
    case "content-object":
      edit(1, (o) => void (o.choices[0]!.delta = { content: { text: "tok0" } }));
      break;
    case "role-number":
      edit(0, (o) => void (o.choices[0]!.delta = { role: 1, content: "" }));
      break;
    case "delta-string":
      edit(1, (o) => void (o.choices[0]!.delta = "tok0"));
      break;
    case "choices-object":
      edit(1, (o) => ({ ...o, choices: { 0: o.choices[0] } }));
      break;
    case "after-done":
      events.push(events[1]!.replace("tok0 ", "late"));
      break;
    case "finish-formula":
      edit(finishAt, (o) => void (o.choices[0]!.finish_reason = FORMULA_FINISH));
      break;
  }
  return events;
}

export function misshapenJson(mode: "json-finish-object" | "json-message-string", ok: string): string {
  const body = JSON.parse(ok);
  if (mode === "json-finish-object") body.choices[0].finish_reason = { why: "stop" };
  else body.choices[0].message = "tok0";
  return JSON.stringify(body);
}

/** A valid, idle `GET /sim/timeline` row of one replica, stamped `tUnixMs`. */
export function timelineRow(tUnixMs: number): Record<string, unknown> {
  return {
    t_unix_ms: tUnixMs,
    queue_len: 0,
    oldest_queued_ms: 0,
    running: 0,
    replicas: 1,
    replicas_warming: 0,
    shed: 0,
    rate_limited: 0,
    errors: 0,
    admitted: 0,
    finished: 0,
    kv_tokens: 0,
  };
}

/** Three timeline rows stamped now: one valid, two not (a negative count, a string count). */
export function badTimeline(): Record<string, unknown>[] {
  const row = timelineRow(Date.now());
  return [row, { ...row, queue_len: -1 }, { ...row, running: "many" }];
}
