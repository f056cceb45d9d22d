/**
 * Re-derives the chat example's workload `data/workloads/chat-example/` (workload.json and class_defaults.json)
 * from the app's own code (examples/chat/workload.ts) and the class limits of its SLO policy
 * (data/slo/chat-example.json). Deterministic: the same code writes byte-identical files.
 *
 *     npx deno run --allow-read --allow-write scripts/make_chat_workload.ts [--out DIR]
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chatWorkload, type ClassLimits } from "../examples/chat/workload.ts";
import { type ChatClass, CLASSES } from "../examples/chat/prompt.ts";
import { type CommandSpec, runCommand } from "../lib/command.ts";
import { writeWorkloadFiles } from "./_workload_files.ts";
import { InputError } from "../schema/errors.ts";
import { loadJsonFile } from "../schema/load.ts";
import { SloPolicy } from "../schema/slo.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The SLO policy the class limits come from. */
export const CHAT_SLO = "data/slo/chat-example.json";

/** `make_chat_workload`: its flags and help (lib/command.ts). */
export const MAKE_CHAT_WORKLOAD_COMMAND = {
  name: "make_chat_workload",
  invocation: "npx deno run --allow-read --allow-write scripts/make_chat_workload.ts",
  summary: "re-derives the chat example's workload (`data/workloads/chat-example`) from the app's code and the class " +
    "limits of `data/slo/chat-example.json`, byte for byte",
  flags: {
    out: {
      type: "string",
      arg: "DIR",
      defaultText: "the committed `data/workloads/chat-example`",
      description: "the folder to write into (created if missing)",
    },
  },
  examples: ["npx deno run --allow-read --allow-write scripts/make_chat_workload.ts --out /tmp/chat-example"],
} as const satisfies CommandSpec;

/** Builds, validates and writes the chat workload into `out` (default: the committed folder); returns the files. */
export async function writeChatWorkload(out = join(ROOT, "data/workloads/chat-example")): Promise<string[]> {
  const policy = await loadJsonFile(join(ROOT, CHAT_SLO), SloPolicy, "SLO policy");
  const limits = {} as Record<ChatClass, ClassLimits>;
  for (const cls of CLASSES) {
    const slo = policy.classes[cls];
    if (slo?.e2e_ms === undefined || slo.ttft_ms === undefined) {
      throw new InputError(`${CHAT_SLO}: classes.${cls}: an e2e_ms and a ttft_ms are required`);
    }
    limits[cls] = { e2e_ms: slo.e2e_ms, ttft_ms: slo.ttft_ms };
  }
  const { workload, classDefaults } = chatWorkload(limits);
  return await writeWorkloadFiles(out, { workload, classDefaults });
}

if (import.meta.main) {
  await runCommand(MAKE_CHAT_WORKLOAD_COMMAND, async ({ values: v, check }) => {
    check.require(v.out === "", "--out needs a folder");
    check.throwIfAny();
    for (const f of await writeChatWorkload(v.out)) console.log(`wrote ${f}`);
  });
}
