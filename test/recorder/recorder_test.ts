import assert from "node:assert/strict";
import { SCHEMA_MINOR } from "../../schema/version.ts";
import { recorder } from "../../recorder/mod.ts";
import { DEFINITIONS } from "../../recorder/manifest.ts";
import { SAMPLING_RULE } from "../../recorder/sampling.ts";
import { FakeClock, readManifest, readTable, T0, tempOut, testRecorder, withRecorder } from "./_fixture.ts";

const app = { name: "chat", version: "2.3.0" };

Deno.test("recorder() refuses bad options, naming every problem, before touching the disk", () => {
  const t = tempOut();
  try {
    assert.throws(
      () =>
        recorder({
          out: t.out,
          run_id: "",
          app: { name: "chat", version: "" },
          sample: 1.5,
          rotate: { max_bytes: 10.5 },
          buffer: { max_rows: 0, flush_ms: 2 ** 31, settle_ms: -1 },
          page_wait_ms: -1,
        }),
      (e: Error) => {
        assert.ok(e instanceof TypeError);
        for (
          const f of [
            "run_id",
            "app.version",
            "sample",
            "rotate.max_bytes",
            "max_rows",
            "flush_ms",
            "settle_ms",
            "page_wait_ms",
          ]
        ) {
          assert.match(e.message, new RegExp(`\\n${f.replace(".", "\\.")}|buffer\\.${f}`), f);
        }
        return true;
      },
    );
    assert.throws(() => Deno.statSync(t.out), Deno.errors.NotFound);
  } finally {
    t.remove();
  }
});

Deno.test("recorder() refuses a folder that holds another run, and takes one with other files", async () => {
  const t = tempOut();
  try {
    const first = testRecorder(t.out);
    await first.rec.close();
    assert.throws(() => testRecorder(t.out), /holds another run \(part-00000, run\.json\)/);
    const other = `${t.dir}/other`;
    Deno.mkdirSync(other);
    Deno.writeTextFileSync(`${other}/notes.txt`, "mine");
    const second = testRecorder(other);
    await second.rec.close();
    assert.equal(Deno.readTextFileSync(`${other}/notes.txt`), "mine");
  } finally {
    t.remove();
  }
});

Deno.test("run.json at the start says what is recorded and under which conditions", async () => {
  await withRecorder(
    {
      workload: { name: "support", classes: ["chat", "search"] },
      conditions: { region: "eu-west-1" },
      route: "gateway",
      sample: 0.5,
    },
    async ({ rec, out }) => {
      const m = readManifest(out);
      assert.equal(m.kind, "production");
      assert.equal(m.schema_minor, SCHEMA_MINOR);
      assert.equal(m.epoch_iso, new Date(T0).toISOString());
      assert.deepEqual(m.app, app);
      assert.deepEqual(m.conditions, { region: "eu-west-1" });
      assert.deepEqual(m.observation, {
        status: "recording",
        started_iso: new Date(T0).toISOString(),
        ended_iso: null,
        ended_ms: 0,
        stage_s: 3600,
      });
      assert.deepEqual(m.definitions, DEFINITIONS);
      assert.deepEqual(m.parts, [
        { dir: "part-00000", started_ms: 0, ended_ms: null, format: "csv", requests: 0, files: {} },
      ]);
      assert.equal(m.route, "gateway");
      assert.match(m.recorder.runtime, /^deno \d/);
      assert.deepEqual(
        [
          m.recorder.buffer_rows,
          m.recorder.flush_ms,
          m.recorder.settle_ms,
          m.recorder.rotate_s,
          m.recorder.rotate_bytes,
        ],
        [10_000, 3_600_000, 50, 3600, 64 * 1024 * 1024],
      );
      // A class first seen at begin joins the declared ones.
      rec.begin({ class: "summarise" }).complete({});
      await rec.flush();
      assert.deepEqual(readManifest(out).workload, { name: "support", classes: ["chat", "search", "summarise"] });
    },
  );
});

/** Waits (real time, 10 ms steps, at most 3 s) until `done()`. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

Deno.test("the flush timer writes finished tasks by itself, and close() stops it", async () => {
  const t = tempOut();
  const clock = new FakeClock();
  // The settle never comes first: its timer's checks see the fake clock standing still.
  const rec = recorder({ out: t.out, run_id: "r", app, clock, buffer: { flush_ms: 10, settle_ms: 3_600_000 } });
  try {
    rec.begin({ class: "c" }).complete({ at: clock.at(0) });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(rec.stats().written, 0, "not settled: the flush timer waits for the settle too");
    clock.at(3_600_000);
    await until(() => rec.stats().written > 0);
    assert.equal(rec.stats().written, 1);
  } finally {
    await rec.close();
    t.remove();
  }
});

Deno.test("a task that ended is written settle_ms later, without a flush; a late rendered() within it counts", async () => {
  await withRecorder({ buffer: { settle_ms: 50 } }, async ({ rec, clock, out }) => {
    const task = rec.begin({ class: "c", at: clock.at(0) });
    task.complete({ at: clock.at(100) });
    await new Promise((r) => setTimeout(r, 120)); // real time: the settle timer fired, and waits on the fake clock
    assert.equal(rec.stats().written, 0, "49 ms of the fake clock after the end: not settled");
    task.rendered(clock.at(149));
    clock.at(150);
    await until(() => rec.stats().written > 0);
    assert.equal(rec.stats().written, 1, "settled: written with flush_ms an hour");
    task.rendered(clock.at(160)); // after its rows were built: ignored
    const [row] = await readTable(out, "requests");
    assert.equal(row!.completed_ms, 149);
    // A task waiting for its page record does not settle until the record joins.
    const paged = rec.begin({ class: "c", request_id: "p-1", page: true, at: clock.at(200) });
    paged.complete({ at: clock.at(210) });
    clock.at(1000);
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(rec.stats().written, 1);
    rec.page({
      request_id: "p-1",
      action_ms: T0 + 200,
      sent_ms: T0 + 201,
      first_byte_ms: T0 + 204,
      first_paint_ms: T0 + 205,
      last_byte_ms: T0 + 209,
      rendered_ms: T0 + 212,
      clock_offset_ms: 0,
      clock_error_ms: 0,
    });
    await until(() => rec.stats().written > 1);
    assert.equal(rec.stats().written, 2);
  });
});

Deno.test("task.run makes the task current inside, across awaits, and not outside", async () => {
  await withRecorder({}, async ({ rec }) => {
    const task = rec.begin({ class: "c" });
    assert.equal(rec.current(), undefined);
    const seen = await task.run(async () => {
      await new Promise((r) => setTimeout(r, 1));
      return rec.current();
    });
    assert.equal(seen, task);
    assert.equal(rec.current(), undefined);
    task.complete({});
  });
});

Deno.test("a task begun after close is not recorded, and close is idempotent", async () => {
  await withRecorder({}, async ({ rec, out }) => {
    await rec.close();
    const late = rec.begin({ class: "c" });
    assert.equal(late.sampled, false);
    await rec.close();
    await rec.flush();
    assert.equal(readManifest(out).observation.status, "closed");
  });
});

Deno.test("docs/recorder.md quotes run.json definitions word for word, and the sampling rule", () => {
  const doc = Deno.readTextFileSync(new URL("../../docs/recorder.md", import.meta.url)).replace(/\s+/g, " ");
  for (const [key, text] of Object.entries(DEFINITIONS)) assert.ok(doc.includes(text), `definitions.${key}`);
  // The rule's arithmetic as the docs print it (code spans): the same constants and steps as SAMPLING_RULE.
  for (const part of ["0x811c9dc5", "0x01000193", "imul(h, 0x85ebca6b)", "imul(h, 0xc2b2ae35)"]) {
    assert.ok(doc.includes(part) && SAMPLING_RULE.includes(part), part);
  }
});
