/**
 * Bad input files of the runner and plan CLIs: plan (and its trace and
 * drills), workload, run conditions, retry policy, timeouts, routes. Each exits 2 naming the file and the field; several bad
 * files are named in one message.
 */
import { join } from "node:path";
import { tinyCase } from "../../testing/tiny_workload.ts";
import { type BadInputCase, copyDir, editJson, type Good, ROOT, runBadInputSuite } from "../support/bad_input.ts";

const target = ["--target", "http://127.0.0.1:9", "--no-progress"];
/** `deno task run` with the case's `plan.json` (or `plan`) and the good workload. */
const runWith = (...extra: string[]) => (d: string, g: Good) => [
  ...["--workload", g.workload, "--plan", join(d, "plan.json"), "--out", join(d, "out"), ...target],
  ...extra.map((a) => a.replace("$d", d)),
];
/** `deno task run` with good files and `extra` (with `$d` the case's folder). */
const runGood = (...extra: string[]) => (d: string, g: Good) => [
  ...["--workload", g.workload, "--plan", g.plan, "--out", join(d, "out"), ...target],
  ...extra.map((a) => a.replace("$d", d)),
];
const constant = { name: "p", arrivals: { process: "constant", rate_rps: 5, duration_s: 1 } };
/** A copy of the good workload with workload.json (or class_defaults.json) changed. */
const badWorkload = (file: string, edit: (v: Record<string, unknown>) => void) => (d: string, g: Good) => {
  copyDir(g.workload, join(d, "w"));
  editJson(join(d, "w", file), edit);
};
const runOnW = (
  d: string,
  g: Good,
) => ["--workload", join(d, "w"), "--plan", g.plan, "--out", join(d, "out"), ...target];

const CASES: BadInputCase[] = [
  // plan files
  { name: "plan: a missing file", cli: "run", args: runWith(), expect: ["plan.json: cannot read arrival plan"] },
  {
    name: "plan: not JSON",
    cli: "run",
    files: { "plan.json": "{name:" },
    args: runWith(),
    expect: ["plan.json", "not valid JSON"],
  },
  {
    name: "plan: a negative rate",
    cli: "run",
    files: { "plan.json": { name: "p", arrivals: { process: "constant", rate_rps: -1, duration_s: 1 } } },
    args: runWith(),
    expect: ["plan.json", "arrivals.rate_rps"],
  },
  {
    name: "plan: an unknown process",
    cli: "run",
    files: { "plan.json": { name: "p", arrivals: { process: "uniform", rate_rps: 1, duration_s: 1 } } },
    args: runWith(),
    expect: ["plan.json", "arrivals.process"],
  },
  {
    name: "plan: a misspelt key",
    cli: "run",
    files: { "plan.json": { ...constant, seeed: 3 } },
    args: runWith(),
    expect: ["plan.json", "seeed"],
  },
  {
    name: "plan: a name that leaves --out",
    cli: "run",
    files: { "plan.json": { ...constant, name: "../../x" } },
    args: runWith(),
    expect: ["plan.json", "name"],
  },
  {
    name: "plan: a class weight for a class the workload lacks",
    cli: "run",
    files: { "plan.json": { ...constant, mix: { class_weights: { nosuch: 1 } } } },
    args: runWith(),
    expect: ["plan.json", "nosuch"],
  },
  {
    name: "plan: a gamma process without burstiness",
    cli: "plan",
    files: { "plan.json": { name: "p", arrivals: { process: "gamma", rate_rps: 1, duration_s: 1 } } },
    args: (d, g) => ["--plan", join(d, "plan.json"), "--workload", g.workload],
    expect: ["plan.json", "burstiness"],
  },
  {
    name: "plan: a staged plan with a stage of no duration",
    cli: "plan",
    files: {
      "plan.json": {
        name: "p",
        arrivals: {
          process: "staged",
          stages: [{ name: "s", kind: "steady", process: "constant", rate_rps: 1, duration_s: 0 }],
        },
      },
    },
    args: (d, g) => ["--plan", join(d, "plan.json"), "--workload", g.workload],
    expect: ["plan.json", "duration_s"],
  },
  {
    name: "plan: a trace file that is missing",
    cli: "plan",
    files: { "plan.json": { name: "p", arrivals: { process: "trace", file: "t.jsonl", format: "mooncake_jsonl" } } },
    args: (d, g) => ["--plan", join(d, "plan.json"), "--workload", g.workload],
    expect: ["t.jsonl"],
  },
  {
    name: "plan: a trace line without its timestamp",
    cli: "plan",
    files: {
      "plan.json": { name: "p", arrivals: { process: "trace", file: "t.jsonl", format: "mooncake_jsonl" } },
      "t.jsonl": '{"timestamp": 0}\n{"timestamp": "soon"}\n',
    },
    args: (d, g) => ["--plan", join(d, "plan.json"), "--workload", g.workload],
    expect: ["t.jsonl", "timestamp"],
  },
  {
    name: "plan: a csv trace without time_field",
    cli: "plan",
    files: {
      "plan.json": { name: "p", arrivals: { process: "trace", file: "t.csv", format: "csv" } },
      "t.csv": "t\n1\n",
    },
    args: (d, g) => ["--plan", join(d, "plan.json"), "--workload", g.workload],
    expect: ["plan.json", "arrivals.time_field"],
  },
  {
    name: "plan: a drill with an unknown kind",
    cli: "plan",
    files: {
      "plan.json": { ...constant, drills: [{ kind: "intake_pause", name: "d", stop_at_s: 0.2, resume_at_s: 0.5 }] },
    },
    args: (d, g) => ["--plan", join(d, "plan.json"), "--workload", g.workload],
    expect: ["plan.json", "drills.0"],
  },
  {
    name: "plan and workload both bad, both named",
    cli: "plan",
    files: { "plan.json": "[]" },
    args: (d) => ["--plan", join(d, "plan.json"), "--workload", join(d, "no-workload")],
    expect: ["plan.json", "no-workload: cannot read workload"],
  },
  // workload files
  {
    name: "workload: a missing folder",
    cli: "run",
    args: (d, g) => ["--workload", join(d, "none"), "--plan", g.plan, "--out", join(d, "o"), ...target],
    expect: ["none: cannot read workload"],
  },
  {
    name: "workload: a case field of the wrong type",
    cli: "run",
    setup: badWorkload("workload.json", (w) => ((w.cases as Record<string, unknown>[])[0]!.max_output_tokens = "many")),
    args: runOnW,
    expect: ["workload.json", "cases.0.max_output_tokens"],
  },
  {
    name: "workload: a prompt hash that does not match its messages",
    cli: "run",
    setup: badWorkload(
      "workload.json",
      (w) => ((w.cases as Record<string, unknown>[])[0]!.prompt_sha256 = "0".repeat(64)),
    ),
    args: runOnW,
    expect: ["workload.json", "prompt_sha256"],
  },
  {
    name: "workload: a class without defaults",
    cli: "run",
    setup: badWorkload("class_defaults.json", (c) => (c.classes = {})),
    args: runOnW,
    expect: ["qa"],
  },
  {
    name: "workload: class defaults with a negative deadline",
    cli: "run",
    setup: badWorkload(
      "class_defaults.json",
      (c) => ((c.classes as Record<string, Record<string, unknown>>).qa!.deadline_ms = -1),
    ),
    args: runOnW,
    expect: ["class_defaults.json", "classes.qa.deadline_ms"],
  },
  {
    name: "workload: a case with two identical ids",
    cli: "run",
    setup: badWorkload(
      "workload.json",
      (w) => (w.cases = [tinyCase(), { ...tinyCase(), messages: [{ role: "user", content: "b" }] }]),
    ),
    args: runOnW,
    expect: ["workload.json", "qa-001"],
  },
  {
    name: "workload: not JSON",
    cli: "sim",
    setup: (d, g) => {
      copyDir(g.workload, join(d, "w"));
      Deno.writeTextFileSync(join(d, "w", "workload.json"), "{");
    },
    args: (d) => ["--port", "0", "--workload", join(d, "w")],
    expect: ["workload.json"],
  },
  // run conditions, retry policy, timeouts
  {
    name: "conditions: no model",
    cli: "run",
    files: { "c.json": { provider: "x" } },
    args: runGood("--conditions", "$d/c.json"),
    expect: ["c.json", "model"],
  },
  {
    name: "conditions: not JSON",
    cli: "run",
    files: { "c.json": "model: x" },
    args: runGood("--conditions", "$d/c.json"),
    expect: ["c.json", "not valid JSON"],
  },
  {
    name: "conditions: a missing file",
    cli: "run",
    args: runGood("--conditions", "$d/c.json"),
    expect: ["c.json: cannot read run conditions"],
  },
  {
    name: "retry policy: retries 401",
    cli: "run",
    files: { "r.json": { retry_statuses: [401] } },
    args: runGood("--retry", "$d/r.json"),
    expect: ["r.json", "retry_statuses"],
  },
  {
    name: "retry policy: an unknown key",
    cli: "run",
    files: { "r.json": { retries: 3 } },
    args: runGood("--retry", "$d/r.json"),
    expect: ["r.json", "retries"],
  },
  {
    name: "timeouts: a negative idle time",
    cli: "run",
    files: { "t.json": { idle_ms: -5 } },
    args: runGood("--timeouts", "$d/t.json"),
    expect: ["t.json", "idle_ms"],
  },
  {
    name: "plan, conditions, retry policy and timeouts all bad, all named",
    cli: "run",
    files: {
      "plan.json": { name: "p", arrivals: { process: "constant", rate_rps: 0, duration_s: 1 } },
      "c.json": {},
      "r.json": { retry_statuses: [401] },
      "t.json": { idle_ms: "soon" },
    },
    args: runWith("--conditions", "$d/c.json", "--retry", "$d/r.json", "--timeouts", "$d/t.json"),
    expect: ["plan.json", "arrivals.rate_rps", "c.json", "model", "r.json", "retry_statuses", "t.json", "idle_ms"],
  },
  // routes
  {
    name: "routes: a missing file",
    cli: "run",
    args: (d, g) => ["--workload", g.workload, "--plan", g.plan, "--out", join(d, "o"), "--routes", join(d, "r.json")],
    expect: ["r.json: cannot read routes file"],
  },
  {
    name: "routes: a policy naming a route that does not exist",
    cli: "run",
    setup: (d) => {
      Deno.copyFileSync(join(ROOT, "data/routes/hosted.json"), join(d, "r.json"));
      editJson(join(d, "r.json"), (r) => (r.policy = { kind: "single", route: "nosuch" }));
    },
    args: (d, g) => ["--workload", g.workload, "--plan", g.plan, "--out", join(d, "o"), "--routes", join(d, "r.json")],
    expect: ["r.json", "nosuch"],
  },
  {
    name: "routes: a route without a url",
    cli: "run",
    setup: (d) => {
      Deno.copyFileSync(join(ROOT, "data/routes/hosted.json"), join(d, "r.json"));
      editJson(join(d, "r.json"), (r) => delete (r.routes as Record<string, Record<string, unknown>>).hosted!.url);
    },
    args: (d, g) => ["--workload", g.workload, "--plan", g.plan, "--out", join(d, "o"), "--routes", join(d, "r.json")],
    expect: ["r.json", "routes.hosted.url"],
  },
  {
    name: "routes: a --route-url for a route the file lacks",
    cli: "run",
    args: (d, g) => [
      ...["--workload", g.workload, "--plan", g.plan, "--out", join(d, "o")],
      ...["--routes", join(ROOT, "data/routes/hosted.json"), "--route-url", "nosuch=http://127.0.0.1:9"],
    ],
    expect: ["nosuch"],
  },
  {
    name: "target: credentials in the URL",
    cli: "run",
    args: (
      d,
      g,
    ) => ["--workload", g.workload, "--plan", g.plan, "--out", join(d, "o"), "--target", "http://u:p@127.0.0.1:9"],
    expect: ["credentials"],
  },
];

Deno.test("bad run inputs: every file kind exits 2 naming the file and the field, no stack trace", async (t) => {
  await runBadInputSuite(t, CASES);
});
