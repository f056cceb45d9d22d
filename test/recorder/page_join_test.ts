import assert from "node:assert/strict";
import { checkPageRecord } from "../../recorder/page_join.ts";
import type { PageRecord } from "../../recorder/types.ts";
import { readTable, T0, withRecorder } from "./_fixture.ts";

function record(over: Partial<PageRecord> = {}): PageRecord {
  return {
    request_id: "q",
    action_ms: T0 + 10,
    sent_ms: T0 + 12,
    first_byte_ms: T0 + 50,
    first_paint_ms: T0 + 55,
    last_byte_ms: T0 + 90,
    rendered_ms: T0 + 95,
    clock_offset_ms: 0,
    clock_error_ms: 0.5,
    ...over,
  };
}

Deno.test("checkPageRecord takes a well-formed record, with or without the times a page may lack", () => {
  assert.deepEqual(checkPageRecord(record()), { ok: true, record: record({ error: null }) });
  const gaveUp = record({ first_byte_ms: null, first_paint_ms: null, last_byte_ms: null, rendered_ms: null });
  assert.equal(checkPageRecord({ ...gaveUp, error: "fetch_failed" }).ok, true);
  assert.equal(checkPageRecord({ ...record(), extra: "a newer page's field" }).ok, true, "unknown fields are left");
});

Deno.test("checkPageRecord names every problem at once", async (t) => {
  const problems = (r: unknown) => {
    const c = checkPageRecord(r);
    return c.ok ? [] : c.problems;
  };
  await t.step("types and bounds", () => {
    const bad = {
      ...record(),
      request_id: "",
      action_ms: Number.NaN,
      sent_ms: "12",
      first_paint_ms: Infinity,
      clock_error_ms: -1,
      error: "x".repeat(201),
    };
    const p = problems(bad);
    for (const field of ["request_id", "action_ms", "sent_ms", "first_paint_ms", "clock_error_ms", "error"]) {
      assert.ok(p.some((m) => m.startsWith(`${field}:`)), `${field} in ${p.join("; ")}`);
    }
    assert.equal(p.length, 6);
  });
  await t.step("a missing field and a record that is not an object", () => {
    const { clock_offset_ms: _, ...rest } = record();
    assert.deepEqual(problems(rest).map((m) => m.split(":")[0]), ["clock_offset_ms"]);
    assert.equal(problems(null).length, 1);
    assert.equal(problems([record()]).length, 1);
  });
  await t.step("times out of the order a page lives them", () => {
    // rendered (T0 + 40) before the first byte (T0 + 50), first paint (55) and last byte (90).
    assert.deepEqual(problems(record({ rendered_ms: T0 + 40 })), [
      `first_byte_ms (${T0 + 50}) is after rendered_ms (${T0 + 40})`,
      `first_paint_ms (${T0 + 55}) is after rendered_ms (${T0 + 40})`,
      `last_byte_ms (${T0 + 90}) is after rendered_ms (${T0 + 40})`,
    ]);
    assert.deepEqual(problems(record({ sent_ms: T0 + 5 })), [`action_ms (${T0 + 10}) is after sent_ms (${T0 + 5})`]);
  });
});

Deno.test("rec.page joins one record per open sampled task; the rest are counted, bad ones as errors", async () => {
  await withRecorder({ sample: 0.25 }, async ({ rec, out, errors, clock }) => {
    // t-2 is sampled at 0.25, t-0 is not (test/recorder/sampling_test.ts).
    const task = rec.begin({ class: "c", request_id: "t-2", page: true });
    rec.begin({ class: "c", request_id: "t-0", page: true });
    clock.at(80); // the instants below are told, no later than the clock's now
    task.received(T0 + 20);
    task.responded(T0 + 80);
    rec.page(record({ request_id: "t-2" })); // joined
    rec.page(record({ request_id: "t-2" })); // a second record for it: unjoined
    rec.page(record({ request_id: "t-0" })); // unsampled: unjoined
    rec.page(record({ request_id: "nobody" })); // unknown: unjoined
    rec.page(record({ request_id: "t-2", sent_ms: T0 })); // invalid: an error, not unjoined
    assert.equal(rec.stats().page_records_unjoined, 3);
    assert.equal(rec.stats().recorder_errors, 1);
    assert.match(String(errors[0]), /page record: action_ms .* is after sent_ms/);
    task.complete({});
    await rec.flush();
    const phases = (await readTable(out, "phases")).map((p) => [p.phase, p.started_ms, p.ended_ms]);
    // Offset 0: page times less T0. network_up 12 → 20, service 20 → 80, network_down 80 → 90.
    assert.deepEqual(phases, [
      ["page", 10, 12],
      ["network_up", 12, 20],
      ["service", 20, 80],
      ["network_down", 80, 90],
      ["render", 90, 95],
    ]);
  });
});
