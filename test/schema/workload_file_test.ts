import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { loadWorkload, promptSha256 } from "../../schema/workload_file.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Hex sha256 computed apart from the module under test (Web Crypto, not node:crypto). */
async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function makeCase(id: string, cls: string, question: string): Json {
  return tinyCase({
    case_id: id,
    class: cls,
    messages: [{ role: "system", content: "Be brief." }, { role: "user", content: question }],
    input_tokens: 7,
    reference_output: "Canberra.",
    quality_check: { kind: "contains", values: ["Canberra"], all: true, case_insensitive: true },
  });
}

function fixture(): { workload: Json; defaults: Json } {
  const classDefaults = { description: "d", deadline_ms: 3000, ttft_ms: 800, tpot_ms: 50, stream: true, priority: 1 };
  return {
    workload: {
      workload: "tiny",
      version: "1.0.0",
      kind: "design",
      description: "test fixture",
      does_not_represent: ["anything"],
      tokenizer: "o200k_base",
      cases: [makeCase("qa-1", "qa", "Capital of Australia?"), makeCase("sum-1", "sum", "Summarise: x")],
    },
    defaults: { workload: "tiny", classes: { qa: classDefaults, sum: { ...classDefaults, deadline_ms: 20000 } } },
  };
}

/** Writes the fixture (after `edit`) to a temp folder and returns the folder. */
async function writeFixture(edit: (f: { workload: Json; defaults: Json }) => void = () => {}): Promise<string> {
  const f = fixture();
  edit(f);
  const dir = await Deno.makeTempDir({ prefix: "workload_file_" });
  await Deno.writeTextFile(join(dir, "workload.json"), JSON.stringify(f.workload, null, 2));
  await Deno.writeTextFile(join(dir, "class_defaults.json"), JSON.stringify(f.defaults, null, 2));
  return dir;
}

/** Loading `dir` must fail with an InputError whose message holds every fragment. */
async function refuses(dir: string, ...fragments: string[]): Promise<InputError> {
  let caught: unknown;
  try {
    await loadWorkload(dir);
  } catch (e) {
    caught = e;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(caught instanceof InputError, `expected an InputError, got ${caught}`);
  for (const f of fragments) assert.ok(caught.message.includes(f), `"${f}" not in:\n${caught.message}`);
  return caught;
}

Deno.test("loadWorkload() reads a folder or its workload.json, hashes the bytes and indexes the cases", async (t) => {
  const dir = await writeFixture();
  const file = join(dir, "workload.json");
  try {
    for (const path of [dir, file]) {
      await t.step(path === dir ? "given the folder" : "given the file", async () => {
        const w = await loadWorkload(path);
        assert.equal(w.path, file);
        assert.equal(w.sha256, await sha256Hex(await Deno.readFile(file)));
        assert.equal(w.workload.cases.length, 2);
        assert.equal(w.classDefaults.classes.sum?.deadline_ms, 20000);
        assert.equal(w.byCaseId.get("sum-1")?.class, "sum");
        const qa = w.byCaseId.get("qa-1");
        assert.ok(qa);
        assert.equal(w.byPromptSha.get(qa.prompt_sha256), qa);
        assert.equal(w.byPromptSha.size, 2);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("promptSha256() hashes {role, content} in that key order, whatever order the object had", async () => {
  const messages = [{ content: "Hi", role: "user" as const }];
  assert.equal(promptSha256(messages), await sha256Hex('[{"role":"user","content":"Hi"}]'));
  assert.notEqual(promptSha256(messages), await sha256Hex(JSON.stringify(messages)));
});

Deno.test("loadWorkload() refuses a malformed workload, naming the file and the field path", async (t) => {
  await t.step("a missing field", async () => {
    const dir = await writeFixture((f) => delete f.workload.cases[0].max_output_tokens);
    await refuses(dir, `${join(dir, "workload.json")}: cases.0.max_output_tokens`);
  });
  await t.step("a wrong type", async () => {
    const dir = await writeFixture((f) => f.workload.cases[1].priority = "high");
    await refuses(dir, `${join(dir, "workload.json")}: cases.1.priority`);
  });
  await t.step("a tampered prompt_sha256", async () => {
    const dir = await writeFixture((f) => f.workload.cases[1].prompt_sha256 = "0".repeat(64));
    await refuses(dir, `${join(dir, "workload.json")}: cases.1.prompt_sha256`, "case_id sum-1");
  });
  await t.step("messages edited after hashing", async () => {
    const dir = await writeFixture((f) => f.workload.cases[0].messages[1].content = "Capital of Austria?");
    await refuses(dir, `${join(dir, "workload.json")}: cases.0.prompt_sha256`, "case_id qa-1");
  });
  await t.step("a case class missing from class_defaults.json", async () => {
    const dir = await writeFixture((f) => delete f.defaults.classes.sum);
    await refuses(dir, `${join(dir, "workload.json")}: cases.1.class`, `"sum"`, join(dir, "class_defaults.json"));
  });
  await t.step("two cases with the same prompt", async () => {
    const dir = await writeFixture((f) => {
      f.workload.cases[1].messages = f.workload.cases[0].messages;
      f.workload.cases[1].prompt_sha256 = f.workload.cases[0].prompt_sha256;
    });
    await refuses(dir, "cases.1.prompt_sha256", "same prompt as case_id qa-1");
  });
  await t.step("a retrieval document listed twice", async () => {
    const doc = { doc_id: "KB-1", sha256: "a".repeat(64) };
    const dir = await writeFixture((f) => f.workload.cases[0].retrieval = { latency_ms: 20, documents: [doc, doc] });
    await refuses(dir, "cases.0.retrieval.documents.1.doc_id", "KB-1");
  });
  await t.step("a retrieval document without a valid sha256", async () => {
    const doc = { doc_id: "KB-1", sha256: "not-a-hash" };
    const dir = await writeFixture((f) => f.workload.cases[0].retrieval = { latency_ms: 20, documents: [doc] });
    await refuses(dir, "cases.0.retrieval.documents.0.sha256");
  });
  await t.step("workload.json that is not JSON", async () => {
    const dir = await writeFixture();
    await Deno.writeTextFile(join(dir, "workload.json"), "{ not json");
    await refuses(dir, `${join(dir, "workload.json")}: workload is not valid UTF-8 JSON`);
  });
  await t.step("a path that does not exist", async () => {
    const dir = await Deno.makeTempDir({ prefix: "workload_file_" });
    const missing = join(dir, "missing");
    try {
      await assert.rejects(loadWorkload(missing), (e) => {
        assert.ok(e instanceof InputError);
        assert.ok(e.message.startsWith(`${missing}: cannot read workload`), e.message);
        return true;
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("loadWorkload() refuses bad class defaults, naming class_defaults.json and the field", async (t) => {
  await t.step("a wrong type", async () => {
    const dir = await writeFixture((f) => f.defaults.classes.qa.deadline_ms = "3s");
    await refuses(dir, `${join(dir, "class_defaults.json")}: classes.qa.deadline_ms`);
  });
  await t.step("a missing file", async () => {
    const dir = await writeFixture();
    await Deno.remove(join(dir, "class_defaults.json"));
    await refuses(dir, `${join(dir, "class_defaults.json")}: cannot read class defaults`);
  });
  await t.step("defaults written for another workload", async () => {
    const dir = await writeFixture((f) => f.defaults.workload = "other");
    await refuses(dir, `${join(dir, "class_defaults.json")}: workload: "other" does not match "tiny"`);
  });
});

Deno.test("loadWorkload() reports every problem at once", async () => {
  const dir = await writeFixture((f) => {
    f.workload.cases[0].prompt_sha256 = "f".repeat(64);
    f.workload.cases[1].class = "nope";
    f.defaults.workload = "other";
  });
  const e = await refuses(dir, "cases.0.prompt_sha256", "cases.1.class", "class_defaults.json: workload");
  assert.equal(e.problems.length, 3);
});

Deno.test("loadWorkload() reports problems in both files together", async () => {
  const dir = await writeFixture((f) => {
    f.workload.cases[0].input_tokens = -1;
    f.defaults.classes.qa.stream = "yes";
  });
  const e = await refuses(dir, "workload.json: cases.0.input_tokens", "class_defaults.json: classes.qa.stream");
  assert.equal(e.problems.length, 2);
});

Deno.test("the loader's import graph leaves out js-tiktoken, so the runner and simulator start fast", async () => {
  const module = new URL("../../schema/workload_file.ts", import.meta.url).pathname;
  const run = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", module], stdout: "piped" }).output();
  assert.equal(run.code, 0);
  const graph: { modules: { specifier: string }[] } = JSON.parse(new TextDecoder().decode(run.stdout));
  assert.ok(graph.modules.some((m) => m.specifier.endsWith("/schema/workload.ts")), "the graph was read");
  assert.deepEqual(graph.modules.filter((m) => m.specifier.includes("tiktoken")), []);
});
