import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqlRun } from "../../../analysis/sql/sql_run.ts";
import { randomLog, randomManifest, writeParquetRun } from "./_random_log.ts";

const quiet = { onWarning: () => {} };

Deno.test("the SQL views give every log its epoch columns: a 1.6 log's as written, a 1.5 log's derived from run.json", async (t) => {
  const log = randomLog(3, 40);
  // randomManifest's epoch_iso is 2026-01-01T00:00:00.000Z: 1767225600000 ms since the Unix epoch.
  const epochMs = 1767225600000;
  assert.equal(Date.parse(randomManifest().epoch_iso), epochMs);
  for (const minor of [6, 5]) {
    await t.step(`contract 1.${minor}`, async () => {
      const dir = writeParquetRun(join(Deno.makeTempDirSync(), "run"), randomManifest(), log, minor);
      const sql = await openSqlRun(dir, quiet);
      try {
        const req = await sql.engine.query(
          "SELECT request_id, scheduled_ms, scheduled_epoch_ms FROM requests ORDER BY request_id",
        );
        assert.equal(req.length, log.requests.length);
        for (const r of req) {
          assert.equal(r.scheduled_epoch_ms, epochMs + (r.scheduled_ms as number), `${r.request_id}`);
        }
        const att = await sql.engine.query("SELECT sent_ms, sent_epoch_ms FROM attempts");
        assert.equal(att.length, log.attempts.length);
        for (const a of att) assert.equal(a.sent_epoch_ms, epochMs + (a.sent_ms as number));
      } finally {
        sql.close();
      }
    });
  }
});
