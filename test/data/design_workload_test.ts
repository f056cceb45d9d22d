import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { getEncoding } from "js-tiktoken";
import type { QualityCheck, WorkloadCase } from "../../schema/workload.ts";
import { loadWorkload } from "../../schema/workload_file.ts";

const DIR = fileURLToPath(new URL("../../data/workloads/design-v1/", import.meta.url));
const SCRIPT = fileURLToPath(new URL("../../scripts/make_design_workload.ts", import.meta.url));
const CLASSES = ["short_qa", "long_summary", "extract_json", "rag_answer", "tool_agent", "safety"];

const loaded = await loadWorkload(DIR);
const cases = loaded.workload.cases;
const ofClass = (cls: string) => cases.filter((c) => c.class === cls);
const promptText = (c: WorkloadCase) => c.messages.map((m) => m.content).join("\n");
const enc = getEncoding("o200k_base");
const tokens = (s: string) => enc.encode(s).length;
const ajv = new Ajv({ allErrors: true, strict: true });

/** Dotted path into JSON; numeric segments index arrays. */
function valueAt(v: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>(
    (o, k) => (o !== null && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined),
    v,
  );
}

/** The quality rule applied to the reference itself: a reference that fails its own check is a broken case. */
function passes(check: QualityCheck, c: WorkloadCase): boolean {
  const text = c.reference_output;
  const norm = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();
  switch (check.kind) {
    case "exact":
      return check.normalize ? norm(text) === norm(check.value) : text === check.value;
    case "contains": {
      const hay = check.case_insensitive ? text.toLowerCase() : text;
      const hits = check.values.map((v) => hay.includes(check.case_insensitive ? v.toLowerCase() : v));
      return check.all ? hits.every(Boolean) : hits.some(Boolean);
    }
    case "regex":
      return new RegExp(check.pattern, check.flags).test(text);
    case "json_fields": {
      const parsed = JSON.parse(text);
      return Object.entries(check.fields).every(([p, v]) => JSON.stringify(valueAt(parsed, p)) === JSON.stringify(v));
    }
    case "tool_sequence":
      return JSON.stringify(c.tool_calls_expected.map((t) => t.name)) === JSON.stringify(check.tools);
    case "not_applicable":
      // design-v1 judges every case: a case without a quality check is broken here.
      return false;
  }
}

Deno.test("design-v1 is a design workload that says what it does not represent", () => {
  const w = loaded.workload;
  assert.equal(w.workload, "design-v1");
  assert.equal(w.version, "1.0.0");
  assert.equal(w.kind, "design");
  assert.equal(w.tokenizer, "o200k_base");
  assert.ok(w.does_not_represent.length >= 6, "does_not_represent lists its limits");
  assert.ok(w.does_not_represent.some((d) => /production traffic/i.test(d)));
  assert.deepEqual(Object.keys(loaded.classDefaults.classes).sort(), [...CLASSES].sort());
  assert.equal(loaded.classDefaults.classes.extract_json?.stream, false, "JSON extraction is not streamed");
  assert.ok(Object.values(loaded.classDefaults.classes).filter((d) => d.stream).length >= 4, "most classes stream");
  for (const [cls, d] of Object.entries(loaded.classDefaults.classes)) {
    assert.ok(d.ttft_ms < d.deadline_ms, `${cls}: ttft target inside the deadline`);
    for (const c of ofClass(cls)) assert.equal(c.priority, d.priority, `${c.case_id}: priority is the class's`);
  }
});

Deno.test("every class has at least 10 cases covering typical and long inputs and typical and maximum outputs", async (t) => {
  assert.deepEqual([...new Set(cases.map((c) => c.class))].sort(), [...CLASSES].sort());
  for (const cls of CLASSES) {
    await t.step(cls, () => {
      const cs = ofClass(cls);
      assert.ok(cs.length >= 10, `${cls} has ${cs.length} cases`);
      for (const input of ["typical", "long"]) {
        for (const output of ["typical", "maximum"]) {
          assert.ok(cs.some((c) => c.input_size === input && c.output_size === output), `${cls}: ${input}/${output}`);
        }
      }
      // "long" must mean longer: every long input exceeds every typical input of the class.
      const longest = Math.max(...cs.filter((c) => c.input_size === "typical").map((c) => c.input_tokens));
      const shortest = Math.min(...cs.filter((c) => c.input_size === "long").map((c) => c.input_tokens));
      assert.ok(shortest > 1.5 * longest, `${cls}: long inputs (≥ ${shortest}) vs typical (≤ ${longest})`);
      for (const c of cs) {
        const share = c.expected_output_tokens / c.max_output_tokens;
        if (c.output_size === "maximum") assert.ok(share >= 0.9 && share <= 1, `${c.case_id}: ${share}`);
        else assert.ok(share < 0.9, `${c.case_id}: typical output is ${share} of the cap`);
      }
    });
  }
  await t.step("long_summary inputs: typical 2–4k tokens, long 8–12k tokens", () => {
    for (const c of ofClass("long_summary")) {
      const [lo, hi] = c.input_size === "typical" ? [2_000, 4_000] : [8_000, 12_000];
      assert.ok(c.input_tokens >= lo && c.input_tokens <= hi, `${c.case_id}: ${c.input_tokens}`);
    }
  });
});

Deno.test("input_tokens is the o200k_base count of the message contents", () => {
  for (const c of cases) {
    const counted = c.messages.reduce((s, m) => s + tokens(m.content), 0);
    assert.equal(c.input_tokens, counted, c.case_id);
  }
});

Deno.test("expected_output_tokens is exact for JSON, at least the reference for prose, and below the cap", () => {
  for (const c of cases) {
    const ref = tokens(c.reference_output);
    if (c.class === "extract_json") assert.equal(c.expected_output_tokens, ref, c.case_id);
    else assert.ok(c.expected_output_tokens >= ref, `${c.case_id}: ${c.expected_output_tokens} < ${ref}`);
    // An answer that fills the cap reads as cut off (output_valid), so a complete one stays below it.
    assert.ok(c.expected_output_tokens < c.max_output_tokens, `${c.case_id}: reaches its cap`);
  }
});

Deno.test("every reference output passes its own quality check", () => {
  for (const c of cases) assert.ok(passes(c.quality_check, c), `${c.case_id}: ${JSON.stringify(c.quality_check)}`);
});

Deno.test("checked facts of grounded classes appear in the prompt", () => {
  const grounded = cases.filter((c) =>
    c.class === "long_summary" || c.class === "rag_answer" || (c.class === "short_qa" && c.input_size === "long")
  );
  assert.equal(grounded.length, 12 + 12 + 6);
  for (const c of grounded) {
    const q = c.quality_check;
    if (q.kind !== "contains") continue;
    for (const v of q.values) assert.ok(promptText(c).includes(v), `${c.case_id}: "${v}" is not in the prompt`);
  }
});

Deno.test("extract_json references are JSON that satisfy expected_output_schema", () => {
  for (const c of ofClass("extract_json")) {
    assert.ok(c.expected_output_schema, `${c.case_id} has a schema`);
    const schema = c.expected_output_schema as Record<string, unknown>;
    assert.equal(schema.type, "object");
    assert.equal(schema.additionalProperties, false);
    assert.ok(Array.isArray(schema.required) && schema.required.length > 0);
    const validate = ajv.compile(schema);
    const value: Record<string, unknown> = JSON.parse(c.reference_output);
    assert.ok(validate(value), `${c.case_id}: ${ajv.errorsText(validate.errors)}`);
    assert.equal(c.quality_check.kind, "json_fields");
    // The schema is strict: an extra property must be refused.
    assert.equal(validate({ ...value, unexpected: 1 }), false, `${c.case_id}: schema accepts extra fields`);
  }
  for (const c of cases.filter((c) => c.class !== "extract_json")) assert.equal(c.expected_output_schema, null);
});

Deno.test("rag_answer documents are embedded in the prompt and match their sha256", () => {
  for (const c of ofClass("rag_answer")) {
    assert.ok(c.retrieval, c.case_id);
    assert.ok(c.retrieval.latency_ms >= 20 && c.retrieval.latency_ms <= 120, c.case_id);
    const blocks = [...promptText(c).matchAll(/<document id="([^"]+)">\n([\s\S]*?)\n<\/document>/g)];
    assert.deepEqual(blocks.map((b) => b[1]), c.retrieval.documents.map((d) => d.doc_id), c.case_id);
    blocks.forEach((b, i) => {
      const sha = createHash("sha256").update(b[2] ?? "").digest("hex");
      assert.equal(sha, c.retrieval?.documents[i]?.sha256, `${c.case_id}: ${b[1]}`);
    });
    const cited = [...c.reference_output.matchAll(/\[(KB-\d{4})\]/g)].map((m) => m[1]);
    assert.ok(cited.length > 0, `${c.case_id} cites a document`);
    for (const id of cited) assert.ok(blocks.some((b) => b[1] === id), `${c.case_id}: cites ${id}, not retrieved`);
  }
  for (const c of cases.filter((c) => c.class !== "rag_answer")) assert.equal(c.retrieval, null, c.case_id);
});

Deno.test("tool_agent responses replay the expected calls and the permissions allow them", () => {
  for (const c of ofClass("tool_agent")) {
    const n = c.tool_calls_expected.length;
    assert.ok(n >= 1 && n <= 3, `${c.case_id}: ${n} calls`);
    assert.equal(c.tool_responses.length, n, c.case_id);
    assert.deepEqual(c.quality_check, { kind: "tool_sequence", tools: c.tool_calls_expected.map((t) => t.name) });
    c.tool_calls_expected.forEach((call, i) => {
      const resp = c.tool_responses[i];
      assert.ok(resp, c.case_id);
      assert.equal(resp.name, call.name, c.case_id);
      assert.deepEqual(resp.arguments, call.arguments, c.case_id);
      assert.ok(resp.latency_ms >= 10 && resp.latency_ms <= 400, c.case_id);
      assert.ok(resp.ok);
      JSON.parse(resp.content);
      const def = c.tools.find((t) => t.name === call.name);
      assert.ok(def, `${c.case_id}: ${call.name} is offered`);
      const validate = ajv.compile(def.parameters);
      assert.ok(validate(call.arguments), `${c.case_id}: ${call.name} ${ajv.errorsText(validate.errors)}`);
      const perm = c.permitted_tools.find((p) => p.name === call.name);
      assert.ok(perm, `${c.case_id}: ${call.name} is permitted`);
      for (const [arg, value] of Object.entries(call.arguments)) {
        const allowed = (perm.allowed_arguments[arg] ?? []).map((v) => JSON.stringify(v));
        assert.ok(allowed.includes(JSON.stringify(value)), `${c.case_id}: ${call.name}.${arg}=${value}`);
      }
    });
  }
  for (const c of cases.filter((c) => c.class !== "tool_agent")) {
    assert.equal(c.tool_calls_expected.length + c.tools.length + c.tool_responses.length, 0, c.case_id);
  }
});

Deno.test("safety cases plant a canary in the prompt that the reference never discloses", () => {
  const safety = ofClass("safety");
  for (const c of safety) {
    assert.equal(c.safety_case, true, c.case_id);
    assert.match(c.canary ?? "", /^CANARY-[0-9a-f]{8}$/, c.case_id);
    assert.ok(c.messages[0]?.role === "system" && c.messages[0].content.includes(c.canary ?? "-"), c.case_id);
    assert.ok(!c.reference_output.includes(c.canary ?? "-"), `${c.case_id} leaks its canary`);
    assert.equal(c.quality_check.kind, "regex");
  }
  assert.equal(new Set(safety.map((c) => c.canary)).size, safety.length, "canaries are unique");
  for (const c of cases.filter((c) => c.class !== "safety")) {
    assert.equal(c.safety_case, false, c.case_id);
    assert.equal(c.canary, null, c.case_id);
  }
});

Deno.test("the generator re-derives the committed files byte for byte", async () => {
  const out = await Deno.makeTempDir({ prefix: "design_workload_" });
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-write", SCRIPT, "--out", out],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    for (const f of ["workload.json", "class_defaults.json"]) {
      const fresh = await Deno.readFile(`${out}/${f}`);
      const committed = await Deno.readFile(`${DIR}/${f}`);
      assert.ok(fresh.length === committed.length && fresh.every((b, i) => b === committed[i]), `${f} differs`);
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("the generator refuses an unknown flag with exit code 2 and no stack trace", async () => {
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", SCRIPT, "--outdir", "x"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(run.stderr);
  assert.equal(run.code, 2);
  assert.ok(err.startsWith("error: invalid input (1 problem):\n  unknown flag --outdir\n"), err);
  assert.doesNotMatch(err, /\n\s+at /);
});
