import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { InputError } from "./errors.ts";
import { readInputFile } from "./read_input.ts";
import { loadJsonFile, ONE_SHOT_MAX_CHARS, parseWith } from "./load.ts";
import { type ChatMessage, ClassDefaultsFile, Workload, type WorkloadCase } from "./workload.ts";
import { type Rubric, RubricsFile, rubricSha256 } from "./rubric.ts";

/** A workload read from disk, validated and indexed. */
export interface LoadedWorkload {
  /** The workload.json file that was read. */
  path: string;
  workload: Workload;
  /** class_defaults.json from beside workload.json. */
  classDefaults: ClassDefaultsFile;
  /** Hex sha256 of the workload.json bytes (run.json `workload.sha256`). */
  sha256: string;
  byCaseId: Map<string, WorkloadCase>;
  /** Cases by `prompt_sha256`: how a target finds the case a request belongs to. */
  byPromptSha: Map<string, WorkloadCase>;
  /** rubrics.json from beside workload.json, or null when the workload has none. */
  rubrics: LoadedRubrics | null;
}

/** A workload's rubrics, checked and indexed. */
export interface LoadedRubrics {
  /** The rubrics.json that was read. */
  path: string;
  /** Hex sha256 of the file's bytes. */
  sha256: string;
  rubrics: Rubric[];
  /** The rubric that scores each case that has one: its own, else its class's. */
  byCaseId: Map<string, Rubric>;
}

/**
 * Hex sha256 of `JSON.stringify(messages)`, each message as a plain
 * `{role, content}` object in that key order.
 *
 * @example The hash of a one-message prompt
 * ```ts
 * import { promptSha256 } from "./workload_file.ts";
 * import { createHash } from "node:crypto";
 * import assert from "node:assert/strict";
 * const messages = [{ role: "user" as const, content: "Hi" }];
 * const expected = createHash("sha256").update('[{"role":"user","content":"Hi"}]').digest("hex");
 * assert.equal(promptSha256(messages), expected);
 * ```
 */
export function promptSha256(messages: readonly ChatMessage[]): string {
  const plain = messages.map((m) => ({ role: m.role, content: m.content }));
  return createHash("sha256").update(JSON.stringify(plain)).digest("hex");
}

/**
 * Reads a workload (`path` is its folder or its workload.json) and the
 * class_defaults.json beside it, validates both against the contract and
 * checks their integrity: every prompt_sha256 matches its messages, no two
 * cases share a prompt, every case's class has defaults, and retrieved
 * document ids are unique within a case. Every problem is reported at once
 * in one {@linkcode InputError} naming file and field path.
 *
 * @example Loading the design workload
 * ```ts ignore
 * import { loadWorkload } from "./workload_file.ts";
 * const w = await loadWorkload("data/workloads/design-v1");
 * console.log(w.workload.cases.length, w.sha256);
 * ```
 */
export async function loadWorkload(path: string): Promise<LoadedWorkload> {
  const file = await workloadFile(path);
  const defaultsFile = join(dirname(file), "class_defaults.json");
  const problems: string[] = [];
  const collect = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(...(e.problems.length ? e.problems : [e.message]));
      return undefined;
    }
  };
  const read = await collect(() => readWorkload(file));
  const classDefaults = await collect(() => loadJsonFile(defaultsFile, ClassDefaultsFile, "class defaults"));
  if (!read || !classDefaults) throw new InputError(`${file}: cannot load workload`, problems);

  const { workload, sha256 } = read;
  if (classDefaults.workload !== workload.workload) {
    problems.push(
      `${defaultsFile}: workload: "${classDefaults.workload}" does not match "${workload.workload}" in ${file}`,
    );
  }
  const byCaseId = new Map<string, WorkloadCase>();
  const byPromptSha = new Map<string, WorkloadCase>();
  workload.cases.forEach((c, i) => {
    byCaseId.set(c.case_id, c);
    const at = `${file}: cases.${i}`;
    const recomputed = promptSha256(c.messages);
    if (recomputed !== c.prompt_sha256) {
      problems.push(
        `${at}.prompt_sha256: does not match the messages of case_id ${c.case_id} (they hash to ${recomputed})`,
      );
    }
    const twin = byPromptSha.get(c.prompt_sha256);
    if (twin) problems.push(`${at}.prompt_sha256: case_id ${c.case_id} has the same prompt as case_id ${twin.case_id}`);
    else byPromptSha.set(c.prompt_sha256, c);
    if (!Object.hasOwn(classDefaults.classes, c.class)) {
      problems.push(`${at}.class: "${c.class}" (case_id ${c.case_id}) has no entry in ${defaultsFile}`);
    }
    const docIds = new Set<string>();
    c.retrieval?.documents.forEach((d, j) => {
      if (docIds.has(d.doc_id)) {
        problems.push(`${at}.retrieval.documents.${j}.doc_id: "${d.doc_id}" repeats in case_id ${c.case_id}`);
      }
      docIds.add(d.doc_id);
    });
  });
  const rubricsFile = join(dirname(file), "rubrics.json");
  const rubrics = await collect(() => loadRubrics(rubricsFile, workload, problems));
  if (problems.length) throw new InputError(`${file}: workload failed its integrity checks`, problems);
  return { path: file, workload, classDefaults, sha256, byCaseId, byPromptSha, rubrics: rubrics ?? null };
}

/**
 * Reads rubrics.json (null when there is none) and checks it against the workload: the workload's name, every
 * rubric's hash, unique rubric ids, known classes and cases, and at most one rubric per class and per case. Problems
 * are added to `problems`.
 */
async function loadRubrics(file: string, workload: Workload, problems: string[]): Promise<LoadedRubrics | null> {
  try {
    await Deno.stat(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw new InputError(`${file}: cannot read rubrics: ${(e as Error).message}`, [], { cause: e });
  }
  const { value, bytes } = await readJsonBytes(file, "rubrics");
  const parsed = parseWith(RubricsFile, value, file, "rubrics");
  if (parsed.workload !== workload.workload) {
    problems.push(`${file}: workload: "${parsed.workload}" does not match "${workload.workload}"`);
  }
  const classes = new Set(workload.cases.map((c) => c.class));
  const cases = new Set(workload.cases.map((c) => c.case_id));
  const ids = new Set<string>();
  const byClass = new Map<string, Rubric>();
  const byCase = new Map<string, Rubric>();
  parsed.rubrics.forEach((r, i) => {
    const at = `${file}: rubrics.${i}`;
    const hash = rubricSha256(r);
    if (hash !== r.sha256) problems.push(`${at}.sha256: does not match rubric ${r.rubric_id} (it hashes to ${hash})`);
    if (ids.has(r.rubric_id)) problems.push(`${at}.rubric_id: "${r.rubric_id}" repeats`);
    ids.add(r.rubric_id);
    for (
      const [kind, names, known, taken] of [
        ["classes", r.applies_to.classes, classes, byClass],
        ["cases", r.applies_to.cases, cases, byCase],
      ] as const
    ) {
      names.forEach((name, j) => {
        if (!known.has(name)) problems.push(`${at}.applies_to.${kind}.${j}: "${name}" is not in the workload`);
        const other = taken.get(name);
        if (other) problems.push(`${at}.applies_to.${kind}.${j}: "${name}" already has rubric ${other.rubric_id}`);
        else taken.set(name, r);
      });
    }
  });
  const byCaseId = new Map<string, Rubric>();
  for (const c of workload.cases) {
    const r = byCase.get(c.case_id) ?? byClass.get(c.class);
    if (r) byCaseId.set(c.case_id, r);
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { path: file, sha256, rubrics: parsed.rubrics, byCaseId };
}

/** The workload.json behind `path` (a folder or the file itself). */
async function workloadFile(path: string): Promise<string> {
  try {
    return (await Deno.stat(path)).isDirectory ? join(path, "workload.json") : path;
  } catch (e) {
    throw new InputError(`${path}: cannot read workload: ${(e as Error).message}`, [], { cause: e });
  }
}

/** A JSON input file's bytes and value (strict UTF-8), so a hash is of exactly what is validated. */
async function readJsonBytes(file: string, what: string): Promise<{ value: unknown; bytes: Uint8Array }> {
  const bytes = await readInputFile(file, what);
  try {
    return { value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)), bytes };
  } catch (e) {
    throw new InputError(`${file}: ${what} is not valid UTF-8 JSON: ${(e as Error).message}`, [], { cause: e });
  }
}

/** Parses workload.json from its bytes, so the hash is of exactly what was validated. */
async function readWorkload(file: string): Promise<{ workload: Workload; sha256: string }> {
  const { value, bytes } = await readJsonBytes(file, "workload");
  const workload = parseWith(Workload, value, file, "workload", { once: bytes.length < ONE_SHOT_MAX_CHARS });
  return { workload, sha256: createHash("sha256").update(bytes).digest("hex") };
}
