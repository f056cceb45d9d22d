/**
 * The engine's model: generated on this machine by the project's own generator (engine/model/generate.py: seeded
 * random weights, a BPE tokenizer trained on the design workload's text, a ChatML chat template), kept in the cache
 * folder with a sidecar JSON, and reused while the sidecar still fits (same size, seed, generator version and
 * corpus, and the file's bytes still hash to the sidecar's sha256).
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { type Log } from "./build.ts";
import { type CachePaths, REPO_ROOT } from "./paths.ts";
import { fileSha256, output } from "./process.ts";

/** The sizes the generator makes (engine/model/sizes.py). */
export const SIZE_NAMES = ["tiny", "small", "medium"] as const;
export type SizeName = typeof SIZE_NAMES[number];

/** The generator, relative to the repository. */
export const GENERATOR = "engine/model/generate.py";
/** The text the tokenizer is trained on, relative to the repository: frozen, so the model does not drift. */
export const CORPUS = "data/workloads/design-v1/workload.json";

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** The fields of the generator's sidecar that the engine reads (it holds more: see engine/model/generate.py). */
export const ModelSidecar = z.looseObject({
  generator_version: z.string(),
  name: z.string().min(1),
  size: z.enum(SIZE_NAMES),
  seed: z.number().int().nonnegative(),
  file: z.string().min(1),
  sha256: hex64,
  bytes: z.number().int().positive(),
  architecture: z.looseObject({ parameters: z.number().int().positive() }),
  tokenizer: z.looseObject({ corpus_sha256: hex64, vocab_size: z.number().int().positive() }),
  end_of_turn: z.looseObject({ mean_answer_tokens: z.number().positive(), logit: z.number() }),
  seconds: z.looseObject({ total: z.number().nonnegative() }),
});
export type ModelSidecar = z.infer<typeof ModelSidecar>;

/** A model ready to serve, and whether this call generated it. */
export interface Model {
  path: string;
  sidecar: ModelSidecar;
  reused: boolean;
}

/** The generator's version, read from the generator itself (its `GENERATOR_VERSION`). */
export async function generatorVersion(root = REPO_ROOT): Promise<string> {
  const text = await Deno.readTextFile(join(root, GENERATOR));
  const m = /^GENERATOR_VERSION = "([^"]+)"$/m.exec(text);
  if (!m) throw new Error(`${GENERATOR} states no GENERATOR_VERSION`);
  return m[1]!;
}

/** The model's name (also its file name without `.gguf`), as the generator writes it. */
export function modelName(size: SizeName, seed: number, version: string): string {
  return `goodput-random-llama-${size}-s${seed}-g${version}`;
}

async function readSidecar(path: string): Promise<ModelSidecar | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  const parsed = ModelSidecar.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

/** The model file and sidecar when both fit the request, else null. */
async function reusable(
  dir: string,
  want: { size: SizeName; seed: number; version: string; corpusSha256: string },
): Promise<{ path: string; sidecar: ModelSidecar } | null> {
  const name = modelName(want.size, want.seed, want.version);
  const sidecar = await readSidecar(join(dir, `${name}.json`));
  if (
    !sidecar || sidecar.size !== want.size || sidecar.seed !== want.seed ||
    sidecar.generator_version !== want.version ||
    sidecar.tokenizer.corpus_sha256 !== want.corpusSha256
  ) return null;
  const path = join(dir, sidecar.file);
  try {
    if ((await fileSha256(path)) !== sidecar.sha256) return null;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  return { path, sidecar };
}

/** Returns the model of this size and seed, generating it (seconds) unless a fitting one is in the cache. */
export async function ensureModel(
  options: { paths: CachePaths; python: string; size: SizeName; seed: number; log: Log },
): Promise<Model> {
  const { paths, python, size, seed, log } = options;
  const want = {
    size,
    seed,
    version: await generatorVersion(),
    corpusSha256: await fileSha256(join(REPO_ROOT, CORPUS)),
  };
  const found = await reusable(paths.models, want);
  if (found) return { ...found, reused: true };
  log(`engine: generating the ${size} model (seed ${seed}, generator v${want.version})`);
  // -B: no __pycache__ written into the clone.
  const gen = await output(python, [
    "-B",
    GENERATOR,
    "--size",
    size,
    "--seed",
    String(seed),
    "--corpus",
    CORPUS,
    "--out",
    paths.models,
  ], { cwd: REPO_ROOT });
  if (gen.code !== 0) throw new Error(`${GENERATOR} failed (exit ${gen.code}): ${gen.stderr.trim()}`);
  const made = await reusable(paths.models, want);
  if (!made) throw new Error(`${GENERATOR} wrote no model that fits ${JSON.stringify(want)} in ${paths.models}`);
  log(`engine: generated ${made.sidecar.file} in ${made.sidecar.seconds.total} s`);
  return { ...made, reused: false };
}
