/**
 * The chat example driven by real clicks in headless Chromium for 10 s at 1 click/s, then its recorded folder read
 * back: one request row per click, each joined to the page's record, the phases from the click to the paint, the
 * attempts the simulator served. Timing-sensitive (real clocks, a browser): run in the serial pass.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { driveChat, type DriveResult } from "../../../examples/chat/drive.ts";
import { artefactDir, haveChromium } from "../../browser/_tools.ts";
import { type ProductionTables, readProduction, type Row } from "./_production_tables.ts";

/** The five phases of a task whose page record joined, in the order the user lives them. */
const PAGE_PHASES = ["page", "network_up", "service", "network_down", "render"] as const;
/** On one machine the page's and the service's clocks are the same wall clock read by two processes. */
const MAX_OFFSET_MS = 50;

const num = (v: unknown) => v as number;

Deno.test({
  name: "the chat example records one request row per real click, joined to its page record, from click to paint",
  ignore: !haveChromium(),
  async fn(t) {
    const dir = join(artefactDir("chat-example"), "run");
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    const r: DriveResult = await driveChat({
      rate: 1,
      duration_s: 10,
      pages: 3,
      seed: 3,
      dir,
      run_id: "chat-test",
      profile: "data/sim/default.json",
      concurrency: 4,
      sample: 1,
      wait_s: 30,
    });
    const log: ProductionTables = await readProduction(dir);
    const byId = new Map(log.requests.map((q) => [q.request_id as string, q]));
    const phasesOf = (id: unknown) => log.phases.filter((p) => p.request_id === id);

    await t.step("every scheduled click was dispatched, and each is one submit and one request row", () => {
      assert.ok(r.scheduled >= 5, `seed 3 at 1/s over 10 s schedules ${r.scheduled} clicks`);
      assert.equal(r.clicks, r.scheduled);
      assert.equal(r.pages.sends, r.clicks, "the pages handled one submit per click");
      assert.equal(log.requests.length, r.clicks);
      assert.equal(byId.size, r.clicks, "request ids are unique");
      assert.deepEqual(r.problems, [], "no exception or console error in the pages");
      assert.equal(r.pages.answered, r.clicks);
      assert.equal(r.pages.posted, r.clicks, "every page record was posted");
      assert.equal(log.manifest.kind, "production");
      assert.equal(log.manifest.requests, r.clicks);
      assert.equal(log.manifest.dropped.page_records_unjoined, 0);
    });

    await t.step("each row is joined to its page record: page, network_up, service, network_down, render", () => {
      for (const q of log.requests) {
        const names = phasesOf(q.request_id).map((p) => p.phase);
        for (const phase of [...PAGE_PHASES, "queue"]) assert.ok(names.includes(phase), `${q.request_id}: ${phase}`);
      }
    });

    await t.step(
      `the page's clock offset is small on one machine (|offset| < ${MAX_OFFSET_MS} ms, stated per row)`,
      () => {
        const pageRows = log.phases.filter((p) => p.side !== "service");
        assert.ok(pageRows.length >= 4 * r.clicks);
        for (const p of pageRows) {
          assert.ok(Math.abs(num(p.clock_offset_ms)) < MAX_OFFSET_MS, `offset ${p.clock_offset_ms}`);
          assert.ok(num(p.clock_error_ms) >= 0 && num(p.clock_error_ms) < MAX_OFFSET_MS, `error ${p.clock_error_ms}`);
        }
        for (const p of log.phases.filter((p) => p.side === "service")) assert.equal(p.clock_offset_ms, null);
      },
    );

    await t.step("completed ≥ first token ≥ scheduled, and the phases run from the click to the paint", () => {
      for (const q of log.requests) {
        assert.equal(q.outcome, "ok", `${q.request_id}: ${q.outcome} ${q.error_kind ?? ""}`);
        const [s, ft, c] = [num(q.scheduled_ms), num(q.first_token_ms), num(q.completed_ms)];
        assert.ok(s <= ft && ft <= c, `${q.request_id}: scheduled ${s}, first token ${ft}, completed ${c}`);
        const at = (name: string) => phasesOf(q.request_id).find((p) => p.phase === name) as Row;
        // The page's phases start at the click (the row's scheduled_ms) and end at the paint (its completed_ms).
        assert.ok(Math.abs(num(at("page").started_ms) - s) < 1e-6, `page starts at ${at("page").started_ms}, not ${s}`);
        assert.ok(Math.abs(num(at("render").ended_ms) - c) < 1e-6, `render ends at ${at("render").ended_ms}, not ${c}`);
        // Each phase ends where the next starts (the network phases meet the service's on the service clock).
        for (let i = 1; i < PAGE_PHASES.length; i++) {
          const gap = num(at(PAGE_PHASES[i]!).started_ms) - num(at(PAGE_PHASES[i - 1]!).ended_ms);
          assert.ok(Math.abs(gap) < 1e-6, `${PAGE_PHASES[i - 1]} → ${PAGE_PHASES[i]}: ${gap} ms`);
        }
      }
    });

    await t.step("the attempts are the calls the simulator served, and every task has its retrieval", () => {
      const served = r.sim.admitted + r.sim.shed + r.sim.rate_limited + r.sim.errors;
      assert.equal(log.attempts.length, served);
      assert.ok(served >= r.clicks);
      const retrievals = log.tools.filter((x) => x.tool === "retrieval");
      assert.deepEqual(retrievals.map((x) => x.request_id).sort(), [...byId.keys()].sort());
      const orders = log.requests.filter((q) => q.class === "order").map((q) => q.request_id).sort();
      assert.deepEqual(log.tools.filter((x) => x.tool === "order_status").map((x) => x.request_id).sort(), orders);
    });
  },
});
