/**
 * Bad run folders, through every analysis CLI that reads one: missing or
 * damaged run.json, an unknown schema version, tampered, truncated or
 * missing log files, bad rows, and shard sets that are not one whole run.
 * Each exits 2 naming the folder or file and the field; two bad folders are
 * named in one message.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { type BadInputCase, copyDir, editJson, type Good, runBadInputSuite } from "../support/bad_input.ts";

/** A copy of the good run in the case's folder at `name`, changed by `damage` (given the copy's path). */
const damaged = (damage: (run: string) => void, name = "run") => (d: string, g: Good) =>
  damage(copyDir(g.run, join(d, name)));
/** The analysis arguments on the case's `run` folder. */
const onCopy = (...extra: string[]) => (d: string, g: Good) => [join(d, "run"), "--slo", g.slo, ...extra];
/** Rewrites a log file and records its new sha256 in run.json, so that only the content is wrong. */
function rewrite(run: string, file: string, change: (text: string) => string): void {
  Deno.writeTextFileSync(join(run, file), change(Deno.readTextFileSync(join(run, file))));
  const hash = createHash("sha256").update(Deno.readFileSync(join(run, file))).digest("hex");
  editJson(join(run, "run.json"), (m) => ((m.files as Record<string, string>)[file] = hash));
}
/** Replaces column `col` of the first data row of a CSV. */
const setCell = (col: string, value: string) => (text: string) => {
  const lines = text.split("\n");
  const i = lines[0]!.split(",").indexOf(col);
  const cells = lines[1]!.split(",");
  cells[i] = value;
  lines[1] = cells.join(",");
  return lines.join("\n");
};
/** Shard folders under the case's `set/`: each a copy of the good run saying it is shard i of n. */
const shards = (...folders: [name: string, index: number, count: number][]) => (d: string, g: Good) => {
  for (const [name, index, count] of folders) {
    const dir = copyDir(g.run, join(d, "set", name));
    editJson(join(dir, "run.json"), (m) => ((m.plan as Record<string, unknown>).shard = { index, count }));
  }
};
const onSet = (d: string, g: Good) => [join(d, "set"), "--slo", g.slo];

const CASES: BadInputCase[] = [
  {
    name: "a folder that does not exist",
    cli: "analyze",
    args: (d, g) => [join(d, "none"), "--slo", g.slo],
    expect: ["none"],
  },
  {
    name: "a folder without run.json",
    cli: "analyze",
    setup: (d) => Deno.mkdirSync(join(d, "run")),
    args: onCopy(),
    expect: ["run.json"],
  },
  {
    name: "run.json not JSON",
    cli: "analyze",
    setup: damaged((r) => Deno.writeTextFileSync(join(r, "run.json"), "{")),
    args: onCopy(),
    expect: ["run.json"],
  },
  {
    name: "run.json: run_id a number",
    cli: "analyze",
    setup: damaged((r) => editJson(join(r, "run.json"), (m) => (m.run_id = 5))),
    args: onCopy(),
    expect: ["run.json", "run_id"],
  },
  {
    name: "run.json: epoch_iso missing",
    cli: "knee",
    setup: damaged((r) => editJson(join(r, "run.json"), (m) => delete m.epoch_iso)),
    args: onCopy(),
    expect: ["run.json", "epoch_iso"],
  },
  {
    name: "run.json: schema_version 9",
    cli: "analyze",
    setup: damaged((r) => editJson(join(r, "run.json"), (m) => (m.schema_version = 9))),
    args: onCopy(),
    expect: ["run.json", "schema_version"],
  },
  {
    name: "run.json: a stage of the wrong kind",
    cli: "report",
    setup: damaged((r) => editJson(join(r, "run.json"), (m) => ((m.stages as { kind: string }[])[0]!.kind = "idle"))),
    args: onCopy(),
    expect: ["run.json", "stages.0.kind"],
  },
  {
    name: "requests.csv tampered (its sha256 no longer matches run.json)",
    cli: "analyze",
    setup: damaged((r) =>
      Deno.writeTextFileSync(join(r, "requests.csv"), Deno.readTextFileSync(join(r, "requests.csv")) + "\n")
    ),
    args: onCopy(),
    expect: ["requests.csv", "sha256"],
  },
  {
    name: "attempts.csv tampered",
    cli: "ledger",
    setup: damaged((r) => Deno.writeTextFileSync(join(r, "attempts.csv"), "\n", { append: true })),
    args: (d, g) => [join(d, "run"), "--slo", g.slo, "--prices", g.prices],
    expect: ["attempts.csv", "sha256"],
  },
  {
    name: "requests.csv truncated mid-row",
    cli: "analyze",
    setup: damaged((r) => rewrite(r, "requests.csv", (t) => t.slice(0, t.length - 20))),
    args: onCopy(),
    expect: ["requests.csv: truncated last row"],
  },
  {
    name: "requests.csv missing",
    cli: "analyze",
    setup: damaged((r) => Deno.removeSync(join(r, "requests.csv"))),
    args: onCopy(),
    expect: ["requests.csv"],
  },
  {
    name: "attempts.csv missing",
    cli: "knee",
    setup: damaged((r) => Deno.removeSync(join(r, "attempts.csv"))),
    args: onCopy(),
    expect: ["attempts.csv"],
  },
  {
    name: "requests.csv: a column renamed",
    cli: "analyze",
    setup: damaged((r) => rewrite(r, "requests.csv", (t) => t.replace("scheduled_ms", "planned_ms"))),
    args: onCopy(),
    expect: ["requests.csv", "scheduled_ms"],
  },
  {
    name: "requests.csv: an unknown outcome",
    cli: "analyze",
    setup: damaged((r) => rewrite(r, "requests.csv", setCell("outcome", "great"))),
    args: onCopy(),
    expect: ["requests.csv", "outcome"],
  },
  {
    name: "requests.csv: scheduled_ms not a number",
    cli: "audit",
    setup: damaged((r) => rewrite(r, "requests.csv", setCell("scheduled_ms", "soon"))),
    args: (d, g) => [join(d, "run"), "--slo", g.slo, "--claim", g.claim],
    expect: ["requests.csv"],
  },
  {
    name: "attempts.csv: a request_id empty",
    cli: "analyze",
    setup: damaged((r) => rewrite(r, "attempts.csv", setCell("request_id", ""))),
    args: onCopy(),
    expect: ["attempts.csv", "request_id"],
  },
  {
    name: "a tampered file and a bad SLO, both named",
    cli: "analyze",
    files: { "slo.json": { default: { e2e_ms: "x" } } },
    setup: damaged((r) =>
      Deno.writeTextFileSync(join(r, "requests.csv"), Deno.readTextFileSync(join(r, "requests.csv")) + "\n")
    ),
    args: (d) => [join(d, "run"), "--slo", join(d, "slo.json")],
    expect: ["requests.csv", "sha256", "slo.json: default.e2e_ms"],
  },
  {
    name: "two bad run folders, both named",
    cli: "compare",
    setup: (d, g) => {
      damaged((r) => editJson(join(r, "run.json"), (m) => (m.schema_version = 2)), "a")(d, g);
      damaged((r) => Deno.removeSync(join(r, "requests.csv")), "b")(d, g);
    },
    args: (d, g) => [join(d, "a"), join(d, "b"), "--slo", g.slo],
    expect: [/\/a\/run\.json.*schema_version/, /\/b\/requests\.csv/],
  },
  {
    name: "a --single run folder missing",
    cli: "compare",
    args: (d, g) => [g.run, g.run2, "--single", join(d, "solo"), "--slo", g.slo],
    expect: ["solo"],
  },
  {
    name: "the second of several runs damaged",
    cli: "knee",
    setup: damaged((r) => editJson(join(r, "run.json"), (m) => (m.run_id = null))),
    args: (d, g) => [g.run, join(d, "run"), "--slo", g.slo],
    expect: ["run.json", "run_id"],
  },
  // shard sets
  {
    name: "shards: one of two missing",
    cli: "analyze",
    setup: shards(["shard-0-of-2", 0, 2]),
    args: onSet,
    expect: ["1 of 2 shards missing: shard-1-of-2", "--partial-shards"],
  },
  {
    name: "shards: one of two missing (knee)",
    cli: "knee",
    setup: shards(["shard-1-of-2", 1, 2]),
    args: onSet,
    expect: ["1 of 2 shards missing: shard-0-of-2"],
  },
  {
    name: "shards: 0 of 2 beside 0 of 3",
    cli: "analyze",
    setup: shards(["shard-0-of-2", 0, 2], ["shard-1-of-2", 1, 2], ["shard-0-of-3", 0, 3]),
    args: onSet,
    expect: ["shards disagree on the shard count N"],
  },
  {
    name: "shards: a folder whose run.json names another shard",
    cli: "analyze",
    setup: shards(["shard-0-of-2", 1, 2], ["shard-1-of-2", 1, 2]),
    args: onSet,
    expect: ["shard-0-of-2/run.json: plan.shard is 1 of 2, but its folder is shard-0-of-2"],
  },
  {
    name: "shards: the same request ids in both shards",
    cli: "ledger",
    setup: shards(["shard-0-of-2", 0, 2], ["shard-1-of-2", 1, 2]),
    args: (d, g) => [join(d, "set"), "--slo", g.slo, "--prices", g.prices],
    expect: ["request_id values appear in more than one row of the shards' requests logs"],
  },
  {
    name: "shards: two different runs",
    cli: "report",
    setup: (d, g) => {
      shards(["shard-0-of-2", 0, 2], ["shard-1-of-2", 1, 2])(d, g);
      editJson(join(d, "set", "shard-1-of-2", "run.json"), (m) => (m.run_id = "other-run"));
    },
    args: onSet,
    expect: ["shards belong to different runs"],
  },
  {
    name: "shards: a shard's run.json damaged",
    cli: "analyze",
    setup: (d, g) => {
      shards(["shard-0-of-2", 0, 2], ["shard-1-of-2", 1, 2])(d, g);
      editJson(join(d, "set", "shard-1-of-2", "run.json"), (m) => (m.epoch_iso = 7));
    },
    args: onSet,
    expect: ["shard-1-of-2/run.json", "epoch_iso"],
  },
];

Deno.test("bad run folders: every analysis CLI exits 2 naming the folder, file and field, no stack trace", async (t) => {
  await runBadInputSuite(t, CASES);
});
