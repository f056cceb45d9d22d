/**
 * Bad input files of the simulator and the demo: simulator profile, and the
 * demo's plans and profile (checked, with the workload, before any simulator
 * starts). Each exits 2 naming the file and the field; several bad files are
 * named in one message.
 */
import { join } from "node:path";
import { type BadInputCase, runBadInputSuite } from "../support/bad_input.ts";

const constant = { name: "p", arrivals: { process: "constant", rate_rps: 5, duration_s: 1 } };

const CASES: BadInputCase[] = [
  // simulator profile
  {
    name: "sim profile: a misspelt key",
    cli: "sim",
    files: { "p.json": { name: "x", replicass: 2 } },
    args: (d) => ["--port", "0", "--profile", join(d, "p.json")],
    expect: ["p.json", "replicass"],
  },
  {
    name: "sim profile: a field of the wrong type",
    cli: "sim",
    files: { "p.json": { name: "x", queue: { max_len: "many" } } },
    args: (d) => ["--port", "0", "--profile", join(d, "p.json")],
    expect: ["p.json", "queue.max_len"],
  },
  {
    name: "sim profile: a missing file",
    cli: "sim",
    args: (d) => ["--port", "0", "--profile", join(d, "p.json")],
    expect: ["p.json"],
  },
  {
    name: "sim profile and workload both bad, both named",
    cli: "sim",
    files: { "p.json": { name: "x", replicas: -1 } },
    args: (d) => ["--port", "0", "--profile", join(d, "p.json"), "--workload", join(d, "none")],
    expect: ["p.json", "replicas", "none: cannot read workload"],
  },
  {
    name: "sim profile: a bad demo profile",
    cli: "demo",
    files: { "p.json": { name: "x", replicas: 0 } },
    args: (d) => ["--profile", join(d, "p.json")],
    expect: ["p.json", "replicas"],
  },
  {
    name: "plan: a bad demo plan",
    cli: "demo",
    files: { "plan.json": { name: "p" } },
    args: (d) => ["--plan", join(d, "plan.json")],
    expect: ["plan.json", "arrivals"],
  },
  {
    name: "plan: a demo routes plan with an unknown class, and a bad seed",
    cli: "demo",
    files: { "plan.json": { ...constant, mix: { class_weights: { nosuch: 1 } } } },
    args: (d) => ["--routes-plan", join(d, "plan.json"), "--seed", "x"],
    expect: ["plan.json", "nosuch", "--seed"],
  },
];

Deno.test("bad simulator and demo inputs: exit 2 naming the file and the field, no stack trace", async (t) => {
  await runBadInputSuite(t, CASES);
});
