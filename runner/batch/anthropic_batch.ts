/**
 * Anthropic Message Batches for an `anthropic-messages` batch route: the
 * items are sent in one `POST /v1/messages/batches` (`requests: [{custom_id,
 * params}]`), the batch is polled with `GET /v1/messages/batches/{id}` until
 * its `processing_status` is `ended`, and its results are read from its
 * `results_url` (JSONL, one `{custom_id, result}` per item). docs/batch.md.
 *
 * @module
 */
import type { Outcome } from "../../schema/mod.ts";
import {
  batchCall,
  BatchCallError,
  type BatchItemResult,
  type BatchProvider,
  jsonLines,
  jsonObject,
  readCounts,
  safeId,
} from "./provider.ts";

/** The one Anthropic batch status after which nothing changes. */
export const ANTHROPIC_ENDED = "ended";

/**
 * Message Batches at the route's Messages URL (`…/v1/messages` → `…/v1/messages/batches`), with the route's headers
 * (`x-api-key`, `anthropic-version`). The `results_url` a poll names is followed only on the route's own origin: the
 * key is never sent elsewhere.
 */
export function anthropicBatchProvider(messagesUrl: URL, headers: Record<string, string>): BatchProvider {
  const base = new URL(messagesUrl);
  base.search = "";
  base.pathname = `${base.pathname.replace(/\/+$/, "")}/batches`;
  const at = (id?: string) => {
    const u = new URL(base);
    if (id) u.pathname = `${base.pathname}/${id}`;
    return u;
  };
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k !== "accept" && k !== "idempotency-key") h[k] = v;
  h["content-type"] = "application/json";
  return {
    async submit(items, signal) {
      const requests = items.map((i) => ({ custom_id: i.customId, params: anthropicParams(i.body) }));
      const b = jsonObject(
        "create",
        await batchCall("create", at(), { method: "POST", headers: h, body: JSON.stringify({ requests }) }, signal),
      );
      return safeId("create", b.id);
    },
    async poll(id, signal) {
      const b = jsonObject("poll", await batchCall("poll", at(id), { method: "GET", headers: h }, signal));
      const status = typeof b.processing_status === "string" ? b.processing_status.slice(0, 40) : "";
      if (!status) throw new BatchCallError("poll", null, "", "poll: the batch has no processing_status");
      let resultsUrl: URL | null = null;
      if (typeof b.results_url === "string") {
        try {
          resultsUrl = new URL(b.results_url, base);
        } catch {
          throw new BatchCallError("poll", null, "", "poll: results_url is not a URL");
        }
        if (resultsUrl.origin !== base.origin) {
          throw new BatchCallError(
            "poll",
            null,
            "",
            `poll: results_url is on ${resultsUrl.origin}, not the route's origin`,
          );
        }
      }
      return { status, ended: status === ANTHROPIC_ENDED, counts: readCounts(b.request_counts), handle: resultsUrl };
    },
    async results(poll, signal) {
      const url = poll.handle as URL | null;
      const items = new Map<string, BatchItemResult>();
      if (url === null) throw new BatchCallError("download", null, "", "download: the ended batch has no results_url");
      const text = await batchCall("download", url, { method: "GET", headers: h }, signal);
      for (const line of jsonLines(text)) {
        const customId = line?.custom_id;
        if (typeof customId !== "string" || items.has(customId)) continue;
        items.set(customId, readAnthropicLine(line!));
      }
      return { items, missing: { outcome: "invalid_response" as Outcome, errorKind: "batch_item_missing" } };
    },
  };
}

/** An item's `params`: the dialect's Messages body without `stream` (a batch item is never streamed). */
export function anthropicParams(body: string): Record<string, unknown> {
  const params = JSON.parse(body) as Record<string, unknown>;
  delete params.stream;
  return params;
}

/**
 * One results line `{custom_id, result}`: `succeeded` → the `message` (what a Messages API 200 carries, read by the
 * dialect); `errored` → `error.error.type` (`overloaded_error`, `rate_limit_error` → rejected; others http_error),
 * kind `batch_errored:<type>`; `canceled` → aborted `batch_canceled`; `expired` → timeout `batch_expired`; anything
 * else → invalid_response `batch_item_malformed`.
 */
export function readAnthropicLine(line: Record<string, unknown>): BatchItemResult {
  const r = line.result as Record<string, unknown> | null | undefined;
  const type = r && typeof r === "object" ? r.type : undefined;
  switch (type) {
    case "succeeded":
      if (r!.message === null || typeof r!.message !== "object") break;
      return { kind: "answer", status: 200, body: JSON.stringify(r!.message) };
    case "errored": {
      const outer = r!.error as Record<string, unknown> | null | undefined;
      const inner = outer && typeof outer === "object" ? outer.error as Record<string, unknown> | undefined : undefined;
      const t = inner && typeof inner === "object" && typeof inner.type === "string" ? inner.type : null;
      const safe = t === null ? "unknown" : t.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60);
      const outcome: Outcome = safe === "overloaded_error" || safe === "rate_limit_error" ? "rejected" : "http_error";
      return { kind: "failed", outcome, errorKind: `batch_errored:${safe}`, status: null };
    }
    case "canceled":
      return { kind: "failed", outcome: "aborted", errorKind: "batch_canceled", status: null };
    case "expired":
      return { kind: "failed", outcome: "timeout", errorKind: "batch_expired", status: null };
  }
  return { kind: "failed", outcome: "invalid_response", errorKind: "batch_item_malformed", status: null };
}
