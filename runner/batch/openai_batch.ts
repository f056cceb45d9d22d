/**
 * The OpenAI Batch API for an `openai-chat` batch route: the items are one
 * JSONL file uploaded with `POST /v1/files` (multipart, `purpose=batch`), a
 * batch is created over it with `POST /v1/batches` (`endpoint`
 * `/v1/chat/completions`, `completion_window` `24h`), polled with
 * `GET /v1/batches/{id}` and its output and error files read with
 * `GET /v1/files/{id}/content`. docs/batch.md.
 *
 * @module
 */
import type { Outcome } from "../../schema/mod.ts";
import {
  batchCall,
  BatchCallError,
  type BatchItemIn,
  type BatchItemResult,
  type BatchProvider,
  jsonLines,
  jsonObject,
  readCounts,
  safeId,
} from "./provider.ts";

/** OpenAI batch statuses after which nothing changes. */
export const OPENAI_ENDED = ["completed", "failed", "expired", "cancelled"] as const;

/** The chat endpoint every item names (the batch's `endpoint` and each line's `url`). */
export const OPENAI_BATCH_ENDPOINT = "/v1/chat/completions";

/** What a poll keeps for the results: the output and error file ids, and the batch's own error code. */
interface OpenAIHandle {
  status: string;
  outputFileId: string | null;
  errorFileId: string | null;
  /** `errors.data[0].code` of a failed batch (its validation failed: no item ran). */
  errorCode: string | null;
}

/** The JSONL line of one item. */
export function openaiBatchLine(item: BatchItemIn): string {
  return JSON.stringify({
    custom_id: item.customId,
    method: "POST",
    url: OPENAI_BATCH_ENDPOINT,
    body: JSON.parse(item.body),
  });
}

/**
 * The OpenAI Batch API at `chatUrl`'s `/v1` (the route's chat completions URL less `/chat/completions`), with the
 * route's headers (its `Authorization` included).
 */
export function openaiBatchProvider(chatUrl: URL, headers: Record<string, string>): BatchProvider {
  const base = new URL(chatUrl);
  base.search = "";
  base.pathname = base.pathname.replace(/\/chat\/completions\/?$/, "");
  const at = (path: string) => {
    const u = new URL(base);
    u.pathname = `${base.pathname.replace(/\/+$/, "")}${path}`;
    return u;
  };
  // Control calls carry the key; content-type is the call's own (multipart for the upload).
  const auth: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (k !== "content-type" && k !== "accept" && k !== "idempotency-key") auth[k] = v;
  }
  const json = { ...auth, "content-type": "application/json", accept: "application/json" };
  return {
    async submit(items, signal) {
      const form = new FormData();
      form.append("purpose", "batch");
      const jsonl = items.map(openaiBatchLine).join("\n") + "\n";
      form.append("file", new Blob([jsonl], { type: "application/jsonl" }), "batch.jsonl");
      const file = jsonObject(
        "upload",
        await batchCall("upload", at("/files"), { method: "POST", headers: auth, body: form }, signal),
      );
      const fileId = safeId("upload", file.id);
      const created = jsonObject(
        "create",
        await batchCall("create", at("/batches"), {
          method: "POST",
          headers: json,
          body: JSON.stringify({ input_file_id: fileId, endpoint: OPENAI_BATCH_ENDPOINT, completion_window: "24h" }),
        }, signal),
      );
      return safeId("create", created.id);
    },
    async poll(id, signal) {
      const b = jsonObject(
        "poll",
        await batchCall("poll", at(`/batches/${id}`), { method: "GET", headers: json }, signal),
      );
      const status = typeof b.status === "string" ? b.status.slice(0, 40) : "";
      if (!status) throw new BatchCallError("poll", null, "", "poll: the batch has no status");
      const errors = b.errors as { data?: { code?: unknown }[] } | null | undefined;
      const code = errors?.data?.[0]?.code;
      const handle: OpenAIHandle = {
        status,
        outputFileId: b.output_file_id == null ? null : safeId("poll", b.output_file_id),
        errorFileId: b.error_file_id == null ? null : safeId("poll", b.error_file_id),
        errorCode: typeof code === "string" ? code.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60) : null,
      };
      return {
        status,
        ended: (OPENAI_ENDED as readonly string[]).includes(status),
        counts: readCounts(b.request_counts),
        handle,
      };
    },
    async results(poll, signal) {
      const h = poll.handle as OpenAIHandle;
      const items = new Map<string, BatchItemResult>();
      for (const fileId of [h.outputFileId, h.errorFileId]) {
        if (fileId === null) continue;
        const text = await batchCall(
          "download",
          at(`/files/${fileId}/content`),
          { method: "GET", headers: auth },
          signal,
        );
        for (const line of jsonLines(text)) {
          const customId = line?.custom_id;
          if (typeof customId !== "string" || items.has(customId)) continue;
          items.set(customId, readOpenAILine(line!));
        }
      }
      return { items, missing: openaiMissing(h) };
    },
  };
}

/** What an item without a result line becomes, by the batch's end status (docs/batch.md). */
function openaiMissing(h: OpenAIHandle): { outcome: Outcome; errorKind: string } {
  switch (h.status) {
    case "expired":
      return { outcome: "timeout", errorKind: "batch_expired" };
    case "cancelled":
      return { outcome: "aborted", errorKind: "batch_cancelled" };
    case "failed":
      return { outcome: "http_error", errorKind: h.errorCode ? `batch_failed:${h.errorCode}` : "batch_failed" };
    default:
      return { outcome: "invalid_response", errorKind: "batch_item_missing" };
  }
}

/**
 * One output or error file line: `{custom_id, response: {status_code, body}, error}`. A 2xx `response` is an answer
 * for the dialect to read; another status an error answer; no `response` with an `error` `{code, message}` an item
 * that never got an answer (`batch_expired` → timeout, `batch_cancelled` → aborted, else http_error
 * `batch_item_error:<code>`).
 */
export function readOpenAILine(line: Record<string, unknown>): BatchItemResult {
  const r = line.response;
  if (r !== null && r !== undefined) {
    const res = r as Record<string, unknown>;
    const status = res.status_code;
    if (
      typeof r !== "object" || typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599
    ) {
      return { kind: "failed", outcome: "invalid_response", errorKind: "batch_item_malformed", status: null };
    }
    const body = JSON.stringify(res.body ?? null);
    return status >= 200 && status < 300 ? { kind: "answer", status, body } : { kind: "error_status", status, body };
  }
  const e = line.error as Record<string, unknown> | null | undefined;
  const code = e && typeof e === "object" && typeof e.code === "string"
    ? e.code.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60)
    : null;
  if (code === "batch_expired") return { kind: "failed", outcome: "timeout", errorKind: "batch_expired", status: null };
  if (code === "batch_cancelled") {
    return { kind: "failed", outcome: "aborted", errorKind: "batch_cancelled", status: null };
  }
  if (code !== null) {
    return { kind: "failed", outcome: "http_error", errorKind: `batch_item_error:${code}`, status: null };
  }
  return { kind: "failed", outcome: "invalid_response", errorKind: "batch_item_malformed", status: null };
}
