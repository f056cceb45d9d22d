/**
 * The chat example's load-test workload is the app's own traffic: built by the app's code, byte for byte what the
 * server sends, drawn in the driver's class mix by the shared plan.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { orderNumber, orderStatus } from "../../../examples/chat/orders.ts";
import {
  ANSWER_MAX_TOKENS,
  CHAT_WORKLOAD_NAME,
  chatMessages,
  questionClass,
  QUESTIONS,
} from "../../../examples/chat/prompt.ts";
import { RETRIEVAL_MS, search } from "../../../examples/chat/retrieval.ts";
import { referenceAnswer } from "../../../examples/chat/workload.ts";
import { writeChatWorkload } from "../../../scripts/make_chat_workload.ts";
import { PlanSpec } from "../../../schema/plan.ts";
import { loadWorkload } from "../../../schema/workload_file.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DIR = join(ROOT, "data/workloads/chat-example");
const loaded = await loadWorkload(DIR);
const cases = loaded.workload.cases;

Deno.test("the committed chat-example workload is what scripts/make_chat_workload.ts builds from the app's code", async () => {
  const out = await Deno.makeTempDir();
  try {
    await writeChatWorkload(out);
    for (const file of ["workload.json", "class_defaults.json"]) {
      assert.equal(await Deno.readTextFile(join(out, file)), await Deno.readTextFile(join(DIR, file)), file);
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("each case is one of the driver's questions with the messages the server sends for it", () => {
  assert.equal(loaded.workload.workload, CHAT_WORKLOAD_NAME);
  assert.deepEqual(cases.map((c) => c.messages.at(-1)!.content), [...QUESTIONS]);
  for (const c of cases) {
    const q = c.messages.at(-1)!.content;
    const order = orderNumber(q);
    // server.ts: chatMessages(question, passages from retrieve(), [order status] for an order).
    assert.deepEqual(c.messages, chatMessages(q, search(q), order ? [orderStatus(order)] : []), c.case_id);
    assert.equal(c.class, questionClass(q));
    assert.equal(c.max_output_tokens, ANSWER_MAX_TOKENS);
    assert.equal(c.priority, 0, "the app begins its tasks at the recorder's default priority");
    assert.equal(c.retrieval?.latency_ms, RETRIEVAL_MS, "the app's retrieval stand-in");
    assert.equal(c.reference_output, referenceAnswer(q));
    assert.ok(c.expected_output_tokens < c.max_output_tokens, "a right answer ends by itself, under the cap");
  }
});

Deno.test("the class defaults carry the SLO policy's limits; TPOT is (e2e − TTFT) / the cap", async () => {
  const slo = JSON.parse(await Deno.readTextFile(join(ROOT, "data/slo/chat-example.json")));
  const d = loaded.classDefaults.classes;
  assert.equal(d.question!.deadline_ms, slo.classes.question.e2e_ms);
  assert.equal(d.order!.ttft_ms, slo.classes.order.ttft_ms);
  // question: (3000 − 1000) / 64 = 31.25 ms; order: (4000 − 1500) / 64 = 39.0625 ms.
  assert.equal(d.question!.tpot_ms, 31.25);
  assert.equal(d.order!.tpot_ms, 39.0625);
});

Deno.test("the shared plan draws the classes as the driver does: weights = the questions of each class", async () => {
  const plan = PlanSpec.parse(JSON.parse(await Deno.readTextFile(join(ROOT, "data/plans/chat-example.json"))));
  // The driver draws the nine questions uniformly: 6 questions and 3 orders, so 6 : 3 by class, uniform within.
  const count = (cls: string) => QUESTIONS.filter((q) => questionClass(q) === cls).length;
  assert.deepEqual(plan.mix.class_weights, { question: count("question"), order: count("order") });
  assert.deepEqual(plan.mix.class_weights, { question: 6, order: 3 });
  assert.equal(plan.arrivals.process, "poisson");
});
