/**
 * Reader of GuideLLM's report file, `benchmarks.json` or `benchmarks.yaml` (the same document either way; js-yaml
 * reads the YAML). Two schemas: the v0.2–0.3 report (`guidellm_v03.ts`) and the `metadata.version: 2` report of 0.4
 * and later (`guidellm_v2.ts`). Each benchmark of the report is a stage.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SourceRun } from "../source.ts";
import { parseJson, parseYaml, readSourceText, type SourceText } from "./_source_text.ts";
import { readGuidellmV03 } from "./guidellm_v03.ts";
import { readGuidellmV2 } from "./guidellm_v2.ts";

/** Reads one GuideLLM report (JSON or YAML). */
export async function readGuidellm(files: string[]): Promise<SourceRun> {
  if (files.length !== 1) {
    throw new InputError(`guidellm: give exactly one report file (got ${files.length}: ${files.join(", ")})`);
  }
  return parseGuidellm(await readSourceText(files[0]!));
}

/** Parses a GuideLLM report already read; YAML when the name ends in .yaml/.yml, else JSON. */
export function parseGuidellm(src: SourceText): SourceRun {
  const yaml = /\.ya?ml$/i.test(src.path);
  const value = yaml ? parseYaml(src.text, src.path) : parseJson(src.text, src.path);
  const as = yaml ? "YAML" : "JSON";
  const version = (value as { metadata?: { version?: unknown } } | null)?.metadata?.version;
  if (version === 2) return readGuidellmV2(value, src, `benchmarks ${as} (GuideLLM report, metadata.version 2)`);
  if (version !== undefined) {
    throw new InputError(
      `${src.path}: metadata.version ${
        JSON.stringify(version)
      }: a GuideLLM report schema this reader does not know (it reads the v0.2–0.3 report and version 2)`,
    );
  }
  return readGuidellmV03(value, src, `benchmarks ${as} (GuideLLM v0.2–0.3 report)`);
}
