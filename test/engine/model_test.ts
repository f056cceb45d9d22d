import assert from "node:assert/strict";
import { join } from "node:path";
import { ensureModel, GENERATOR, generatorVersion, modelName, ModelSidecar, SIZE_NAMES } from "../../engine/model.ts";
import { cachePaths, REPO_ROOT } from "../../engine/paths.ts";
import { fileSha256, output } from "../../engine/process.ts";
import { engineBuildForTests } from "./_build.ts";

const build = await engineBuildForTests();
const CORPUS = "data/workloads/design-v1/workload.json";

async function generate(python: string, out: string, seed: number): Promise<ModelSidecar> {
  const r = await output(python, [
    "-B",
    GENERATOR,
    "--size",
    "tiny",
    "--seed",
    String(seed),
    "--corpus",
    CORPUS,
    "--out",
    out,
  ], {
    cwd: REPO_ROOT,
  });
  assert.equal(r.code, 0, r.stderr);
  const name = modelName("tiny", seed, await generatorVersion());
  return ModelSidecar.parse(JSON.parse(await Deno.readTextFile(join(out, `${name}.json`))));
}

/** The GGUF's metadata and tensors as read back by the gguf package's own reader. */
async function readBack(python: string, file: string): Promise<Record<string, unknown>> {
  const script = `
import json, sys
from gguf import GGUFReader
r = GGUFReader(sys.argv[1])
def val(k):
    f = r.get_field(k)
    return None if f is None else f.contents()
keys = ["general.architecture", "llama.block_count", "llama.embedding_length", "llama.feed_forward_length",
        "llama.attention.head_count", "llama.attention.head_count_kv", "llama.context_length",
        "tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.add_bos_token",
        "tokenizer.chat_template", "general.sampling.top_k", "general.sampling.temp"]
out = {k: val(k) for k in keys}
tokens = val("tokenizer.ggml.tokens")
out["tokens"] = len(tokens)
out["eos_text"] = tokens[out["tokenizer.ggml.eos_token_id"]]
out["tensors"] = len(r.tensors)
out["elements"] = int(sum(int(t.n_elements) for t in r.tensors))
print(json.dumps(out))
`;
  const r = await output(python, ["-c", script, file]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

Deno.test({
  name: "the generator writes the same bytes for the same size and seed, and other bytes for another seed",
  ignore: build === null,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const a = await generate(build!.python, join(dir, "a"), 1);
    const b = await generate(build!.python, join(dir, "b"), 1);
    const c = await generate(build!.python, join(dir, "c"), 2);
    assert.equal(a.sha256, b.sha256);
    assert.notEqual(a.sha256, c.sha256);
    assert.equal(await fileSha256(join(dir, "a", a.file)), a.sha256, "the sidecar's sha256 is the file's");
    assert.equal(a.tokenizer.corpus_sha256, await fileSha256(join(REPO_ROOT, CORPUS)));
    assert.equal(a.tokenizer.corpus_sha256, c.tokenizer.corpus_sha256, "the seed moves the weights, not the tokenizer");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "the tiny model is a llama GGUF of 8,391,936 parameters with the tokenizer, chat template and sampling",
  ignore: build === null,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const s = await generate(build!.python, dir, 1);
    const g = await readBack(build!.python, join(dir, s.file));
    // 4096·256 (embeddings) + 4096·256 (output) = 2,097,152; 6 layers · (4·256·256 attention + 3·256·1024
    // feed-forward + 2·256 norms) = 6·(262,144 + 786,432 + 512) = 6,294,528; + 256 (final norm): 8,391,936.
    assert.equal(s.architecture.parameters, 8_391_936);
    assert.equal(g.elements, 8_391_936);
    // 3 (embeddings, final norm, output) + 6 layers · 9 (2 norms, q, k, v, output, gate, up, down) = 57.
    assert.equal(g.tensors, 57);
    assert.equal(g["general.architecture"], "llama");
    assert.equal(g["llama.block_count"], 6);
    assert.equal(g["llama.embedding_length"], 256);
    assert.equal(g["llama.feed_forward_length"], 1024);
    assert.equal(g["llama.attention.head_count_kv"], 4);
    assert.equal(g["tokenizer.ggml.model"], "gpt2");
    assert.equal(g["tokenizer.ggml.pre"], "gpt-2");
    assert.equal(g.tokens, 4096);
    assert.equal(g.eos_text, "<|im_end|>");
    assert.equal(g["tokenizer.ggml.add_bos_token"], false);
    assert.match(String(g["tokenizer.chat_template"]), /<\|im_start\|>assistant/);
    assert.match(String(g["tokenizer.chat_template"]), /<tool_call>/);
    assert.equal(g["general.sampling.top_k"], 0);
    assert.equal(g["general.sampling.temp"], 1);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "the end-of-turn logit makes the per-step end probability 1/mean over the tokens the model may write",
  ignore: build === null,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const s = await generate(build!.python, dir, 1);
    const t = s.tokenizer as ModelSidecar["tokenizer"] & { sampleable_tokens: number };
    const mean = s.end_of_turn.mean_answer_tokens;
    assert.equal(mean, 96);
    // p = e^L / (e^L + n·e^(sd²/2)) with sd = 0.5: e^(0.125) = 1.1331; for p = 1/96, e^L = n·1.1331/95.
    const eL = Math.exp(s.end_of_turn.logit);
    const p = eL / (eL + t.sampleable_tokens * Math.exp(0.125));
    assert.ok(Math.abs(p - 1 / 96) < 1e-9, `p = ${p}`);
    // Most of the 4096 tokens may be written; the control tokens and partial UTF-8 pieces may not.
    assert.ok(t.sampleable_tokens > 3500 && t.sampleable_tokens < 4096 - 7, String(t.sampleable_tokens));
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "ensureModel() generates once, reuses while the file still hashes to its sidecar, and regenerates after",
  ignore: build === null,
  fn: async () => {
    const cache = await Deno.makeTempDir();
    const paths = cachePaths(cache);
    const opts = { paths, python: build!.python, size: "tiny" as const, seed: 3, log: () => {} };
    const first = await ensureModel(opts);
    assert.equal(first.reused, false);
    const second = await ensureModel(opts);
    assert.equal(second.reused, true);
    assert.equal(second.sidecar.sha256, first.sidecar.sha256);
    const f = await Deno.open(first.path, { append: true });
    await f.write(new Uint8Array([0]));
    f.close();
    const third = await ensureModel(opts);
    assert.equal(third.reused, false, "a changed file is not served under the sidecar's hash");
    assert.equal(third.sidecar.sha256, first.sidecar.sha256, "the same seed gives the same bytes again");
    await Deno.remove(cache, { recursive: true });
  },
});

Deno.test({
  name: "the sizes the command offers are the generator's",
  ignore: build === null,
  fn: async () => {
    const r = await output(build!.python, ["-B", "-c", "import json, sizes; print(json.dumps(sorted(sizes.SIZES)))"], {
      cwd: join(REPO_ROOT, "engine/model"),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), [...SIZE_NAMES].sort());
  },
});
