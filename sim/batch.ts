/**
 * The simulator's batch endpoints (docs/batch.md), in memory: the OpenAI
 * Batch API (`POST /v1/files`, `GET /v1/files/{id}/content`,
 * `POST /v1/batches`, `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`)
 * and Anthropic Message Batches (`POST /v1/messages/batches`,
 * `GET /v1/messages/batches/{id}`, `GET /v1/messages/batches/{id}/results`,
 * `POST /v1/messages/batches/{id}/cancel`).
 *
 * Every item is answered by the simulator's own chat path (the same faults,
 * draws, engine and responder as a live request, unstreamed), started in the
 * item order at the batch's creation, a few at a time. A batch ends once the
 * profile's `batch.turnaround_ms` has passed since its creation and every item
 * has its answer; before that its status moves through the provider's
 * progression (OpenAI `validating` → `in_progress` → `finalizing` →
 * `completed`; Anthropic `in_progress` → `ended`), its `request_counts`
 * counting the items answered so far.
 *
 * @module
 */
import type { SimDialect } from "./dialects/dialect.ts";
import { errorResponse } from "./dialects/openai_chat.ts";

/** What the batch endpoints need from the running simulator. */
export interface SimBatchDeps {
  /** Answers one OpenAI Chat Completions body through the simulator's own chat path (never streamed). */
  chat(body: unknown): Promise<Response>;
  /** The simulator's Anthropic dialect (sim/dialects/), or null while the simulator has none. */
  anthropic: SimDialect | null;
  /** Ms from a batch's creation to its end. */
  turnaroundMs: number;
  /** Wall-clock ms (Date.now). */
  now(): number;
  /** The simulator's base URL (Anthropic `results_url`). */
  baseUrl(): string;
}

/** Items of one batch answered at once (the rest wait their turn, in order). */
export const SIM_BATCH_CONCURRENCY = 4;

/** The OpenAI chat endpoint every batch item must name. */
const OPENAI_ENDPOINT = "/v1/chat/completions";
const CUSTOM_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  text: string;
  createdS: number;
}

/** One item's answer: the chat path's status and JSON body. */
interface ItemAnswer {
  status: number;
  body: unknown;
}

interface SimBatch {
  kind: "openai" | "anthropic";
  id: string;
  createdMs: number;
  customIds: string[];
  answers: (ItemAnswer | null)[];
  /** OpenAI: the validation errors of a failed batch. */
  errors: { code: string; message: string; line: number | null }[];
  cancelledMs: number | null;
  /** Set once the batch has ended: its files (OpenAI) or its results (Anthropic). */
  endedMs: number | null;
  outputFileId: string | null;
  errorFileId: string | null;
  results: string | null;
  inputFileId: string | null;
}

/** The batch endpoints' store. */
export class SimBatches {
  readonly #files = new Map<string, StoredFile>();
  readonly #batches = new Map<string, SimBatch>();
  #n = 0;

  constructor(readonly deps: SimBatchDeps) {}

  /** The answer to a batch request, or null when `method path` is not one of the batch endpoints. */
  handle(req: Request, path: string): Promise<Response> | null {
    const m = req.method;
    if (m === "POST" && path === "/v1/files") return this.#upload(req);
    if (m === "POST" && path === "/v1/batches") return this.#createOpenAI(req);
    if (m === "POST" && path === "/v1/messages/batches") return this.#createAnthropic(req);
    let g = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (g && m === "GET") return Promise.resolve(this.#content(g[1]!));
    g = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    if (g && m === (g[2] ? "POST" : "GET")) {
      const b = this.#batches.get(g[1]!);
      if (!b || b.kind !== "openai") return Promise.resolve(openaiNotFound(`No batch found with id '${g[1]}'.`));
      if (g[2]) this.#cancel(b);
      return Promise.resolve(Response.json(this.#openaiObject(b)));
    }
    g = /^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/.exec(path);
    if (g && m === (g[2] === "/cancel" ? "POST" : "GET")) {
      const b = this.#batches.get(g[1]!);
      if (!b || b.kind !== "anthropic") {
        return Promise.resolve(anthropicError(404, "not_found_error", "Batch not found"));
      }
      if (g[2] === "/cancel") this.#cancel(b);
      if (g[2] === "/results") return Promise.resolve(this.#anthropicResults(b));
      return Promise.resolve(Response.json(this.#anthropicObject(b)));
    }
    return null;
  }

  #id(prefix: string): string {
    return `${prefix}${String(++this.#n).padStart(6, "0")}`;
  }

  async #upload(req: Request): Promise<Response> {
    let form: FormData;
    try {
      form = await req.formData();
    } catch (e) {
      return openaiInvalid(`Expected a multipart form: ${(e as Error).message}`, null);
    }
    const purpose = form.get("purpose");
    const file = form.get("file");
    if (purpose !== "batch") return openaiInvalid("purpose must be 'batch' here", "purpose");
    if (!(file instanceof File)) return openaiInvalid("file is missing", "file");
    const f: StoredFile = {
      id: this.#id("file-sim"),
      filename: file.name,
      purpose,
      text: await file.text(),
      createdS: Math.floor(this.deps.now() / 1000),
    };
    this.#files.set(f.id, f);
    return Response.json(fileObject(f));
  }

  #content(id: string): Response {
    const f = this.#files.get(id);
    if (!f) return openaiNotFound(`No such File object: ${id}`);
    return new Response(f.text, { headers: { "content-type": "application/octet-stream" } });
  }

  async #createOpenAI(req: Request): Promise<Response> {
    const body = await req.json().catch(() => null) as Record<string, unknown> | null;
    if (!body || typeof body !== "object") return openaiInvalid("body is not a JSON object", null);
    if (body.endpoint !== OPENAI_ENDPOINT) return openaiInvalid(`endpoint must be ${OPENAI_ENDPOINT} here`, "endpoint");
    if (body.completion_window !== "24h") return openaiInvalid("completion_window must be '24h'", "completion_window");
    const file = typeof body.input_file_id === "string" ? this.#files.get(body.input_file_id) : undefined;
    if (!file) return openaiInvalid(`No such input file: ${body.input_file_id}`, "input_file_id");
    const b = this.#newBatch("openai", this.#id("batch_sim"));
    b.inputFileId = file.id;
    const bodies: unknown[] = [];
    const seen = new Set<string>();
    file.text.split("\n").forEach((raw, i) => {
      if (!raw.trim()) return;
      const line = i + 1;
      let v: Record<string, unknown>;
      try {
        v = JSON.parse(raw);
      } catch {
        return b.errors.push({ code: "invalid_json_line", message: "This line is not parseable as valid JSON.", line });
      }
      const id = v?.custom_id;
      if (typeof id !== "string" || !id) {
        return b.errors.push({ code: "missing_required_parameter", message: "custom_id is missing", line });
      }
      if (seen.has(id)) return b.errors.push({ code: "duplicate_custom_id", message: `${id} is repeated`, line });
      if (v.method !== "POST") return b.errors.push({ code: "invalid_method", message: "method must be POST", line });
      if (v.url !== OPENAI_ENDPOINT) {
        return b.errors.push({ code: "invalid_url", message: "url must be the endpoint", line });
      }
      if (!v.body || typeof v.body !== "object") {
        return b.errors.push({ code: "missing_required_parameter", message: "body is missing", line });
      }
      seen.add(id);
      b.customIds.push(id);
      bodies.push(v.body);
    });
    if (!b.customIds.length && !b.errors.length) {
      b.errors.push({ code: "empty_file", message: "The input file holds no requests.", line: null });
    }
    if (!b.errors.length) this.#answerAll(b, bodies, (body) => this.deps.chat(body));
    return Response.json(this.#openaiObject(b));
  }

  async #createAnthropic(req: Request): Promise<Response> {
    const dialect = this.deps.anthropic;
    if (!dialect) return anthropicError(404, "not_found_error", "this simulator has no Anthropic dialect");
    const body = await req.json().catch(() => null) as { requests?: unknown } | null;
    const requests = body?.requests;
    if (!Array.isArray(requests) || requests.length === 0) {
      return anthropicError(400, "invalid_request_error", "requests: a non-empty list is required");
    }
    const seen = new Set<string>();
    const params: unknown[] = [];
    for (const [i, r] of requests.entries()) {
      const id = (r as { custom_id?: unknown })?.custom_id;
      if (typeof id !== "string" || !CUSTOM_ID.test(id)) {
        return anthropicError(400, "invalid_request_error", `requests.${i}.custom_id: must match ${CUSTOM_ID.source}`);
      }
      if (seen.has(id)) return anthropicError(400, "invalid_request_error", `requests.${i}.custom_id: ${id} repeated`);
      const p = (r as { params?: unknown }).params;
      if (!p || typeof p !== "object") {
        return anthropicError(400, "invalid_request_error", `requests.${i}.params: required`);
      }
      if ((p as { stream?: unknown }).stream === true) {
        return anthropicError(
          400,
          "invalid_request_error",
          `requests.${i}.params.stream: a batch item is not streamed`,
        );
      }
      seen.add(id);
      params.push(p);
    }
    const b = this.#newBatch("anthropic", this.#id("msgbatch_sim"));
    b.customIds = [...seen];
    this.#answerAll(b, params, (p) => this.#anthropicItem(dialect, p));
    return Response.json(this.#anthropicObject(b));
  }

  #newBatch(kind: SimBatch["kind"], id: string): SimBatch {
    const b: SimBatch = {
      kind,
      id,
      createdMs: this.deps.now(),
      customIds: [],
      answers: [],
      errors: [],
      cancelledMs: null,
      endedMs: null,
      outputFileId: null,
      errorFileId: null,
      results: null,
      inputFileId: null,
    };
    this.#batches.set(id, b);
    return b;
  }

  /** Answers every item in order, {@linkcode SIM_BATCH_CONCURRENCY} at a time; a cancelled batch starts no more. */
  #answerAll(b: SimBatch, inputs: unknown[], answer: (input: unknown) => Promise<Response>): void {
    b.answers = inputs.map(() => null);
    let next = 0;
    const worker = async () => {
      while (next < inputs.length && b.cancelledMs === null) {
        const i = next++;
        let a: ItemAnswer;
        try {
          const res = await answer(inputs[i]);
          a = { status: res.status, body: await res.json().catch(() => null) };
        } catch {
          a = b.kind === "anthropic"
            ? { status: 200, body: errored("api_error", "simulator stopped") }
            : { status: 500, body: { error: { message: "simulator stopped", type: "server_error", code: null } } };
        }
        b.answers[i] = a;
      }
    };
    for (let k = 0; k < SIM_BATCH_CONCURRENCY; k++) void worker();
  }

  /** Cancels a batch: items not yet answered are never answered; the batch ends now. */
  #cancel(b: SimBatch): void {
    if (b.endedMs !== null || b.cancelledMs !== null) return;
    b.cancelledMs = this.deps.now();
  }

  /** Whether the batch has ended now (turnaround passed and every item answered, or cancelled, or failed). */
  #ended(b: SimBatch): boolean {
    if (b.endedMs !== null) return true;
    const now = this.deps.now();
    const done = b.errors.length > 0 || b.cancelledMs !== null ||
      (now - b.createdMs >= this.deps.turnaroundMs && b.answers.every((a) => a !== null));
    if (!done) return false;
    b.endedMs = now;
    if (b.kind === "openai") this.#openaiFiles(b);
    else b.results = this.#anthropicLines(b);
    return true;
  }

  /** The output file (2xx answers) and error file (other statuses, and items a cancel left unanswered). */
  #openaiFiles(b: SimBatch): void {
    if (b.errors.length) return;
    const out: string[] = [];
    const err: string[] = [];
    b.customIds.forEach((id, i) => {
      const a = b.answers[i];
      const lineId = `batch_req_${b.id}_${i}`;
      if (!a) {
        const error = { code: "batch_cancelled", message: "This request was cancelled before it ran." };
        return err.push(JSON.stringify({ id: lineId, custom_id: id, response: null, error }));
      }
      const line = JSON.stringify({
        id: lineId,
        custom_id: id,
        response: { status_code: a.status, request_id: `req_sim_${i}`, body: a.body },
        error: null,
      });
      (a.status >= 200 && a.status < 300 ? out : err).push(line);
    });
    const file = (lines: string[]) => {
      if (!lines.length) return null;
      const f: StoredFile = {
        id: this.#id("file-sim"),
        filename: "batch_output.jsonl",
        purpose: "batch_output",
        text: lines.join("\n") + "\n",
        createdS: Math.floor(this.deps.now() / 1000),
      };
      this.#files.set(f.id, f);
      return f.id;
    };
    b.outputFileId = file(out);
    b.errorFileId = file(err);
  }

  #openaiObject(b: SimBatch): Record<string, unknown> {
    const ended = this.#ended(b);
    const now = this.deps.now();
    const age = now - b.createdMs;
    const t = this.deps.turnaroundMs;
    const answered = b.answers.filter((a) => a !== null);
    const ok = answered.filter((a) => a!.status >= 200 && a!.status < 300).length;
    let status: string;
    if (b.errors.length) status = "failed";
    else if (b.cancelledMs !== null) status = ended ? "cancelled" : "cancelling";
    else if (ended) status = "completed";
    else if (age < t * 0.1) status = "validating";
    else if (age < t * 0.9 || answered.length < b.customIds.length) status = "in_progress";
    else status = "finalizing";
    const s = (ms: number | null) => ms === null ? null : Math.floor(ms / 1000);
    return {
      id: b.id,
      object: "batch",
      endpoint: OPENAI_ENDPOINT,
      errors: b.errors.length
        ? {
          object: "list",
          data: b.errors.map((e) => ({ code: e.code, message: e.message, param: null, line: e.line })),
        }
        : null,
      input_file_id: b.inputFileId,
      completion_window: "24h",
      status,
      output_file_id: status === "completed" || status === "cancelled" ? b.outputFileId : null,
      error_file_id: status === "completed" || status === "cancelled" ? b.errorFileId : null,
      created_at: s(b.createdMs),
      in_progress_at: status === "validating" || status === "failed" ? null : s(b.createdMs + t * 0.1),
      expires_at: s(b.createdMs + 86_400_000),
      finalizing_at: status === "finalizing" || status === "completed" ? s(b.createdMs + t * 0.9) : null,
      completed_at: status === "completed" ? s(b.endedMs) : null,
      failed_at: status === "failed" ? s(b.createdMs) : null,
      expired_at: null,
      cancelling_at: s(b.cancelledMs),
      cancelled_at: status === "cancelled" ? s(b.endedMs) : null,
      request_counts: {
        total: b.customIds.length,
        completed: ok,
        failed: answered.length - ok,
      },
      metadata: null,
    };
  }

  /** One results line per item, in item order. */
  #anthropicLines(b: SimBatch): string {
    const lines = b.customIds.map((id, i) => {
      const a = b.answers[i];
      return JSON.stringify({ custom_id: id, result: a ? a.body : { type: "canceled" } });
    });
    return lines.join("\n") + "\n";
  }

  #anthropicObject(b: SimBatch): Record<string, unknown> {
    const ended = this.#ended(b);
    const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString();
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    for (const a of b.answers) {
      const type = (a?.body as { type?: string } | null)?.type;
      if (!a) ended ? counts.canceled++ : counts.processing++;
      else if (type === "succeeded") counts.succeeded++;
      else counts.errored++;
    }
    return {
      id: b.id,
      type: "message_batch",
      processing_status: ended ? "ended" : b.cancelledMs !== null ? "canceling" : "in_progress",
      request_counts: counts,
      ended_at: iso(b.endedMs),
      created_at: iso(b.createdMs),
      expires_at: iso(b.createdMs + 86_400_000),
      archived_at: null,
      cancel_initiated_at: iso(b.cancelledMs),
      results_url: ended ? `${this.deps.baseUrl()}/v1/messages/batches/${b.id}/results` : null,
    };
  }

  #anthropicResults(b: SimBatch): Response {
    if (!this.#ended(b)) {
      return anthropicError(400, "invalid_request_error", `Message Batch ${b.id} has not yet ended`);
    }
    return new Response(b.results, { headers: { "content-type": "application/binary" } });
  }

  /**
   * One Anthropic item: its params read by the simulator's Anthropic dialect, answered through the chat path as an
   * OpenAI body, and the answer written back as the item's `result` (`succeeded` with the Messages API's message, or
   * `errored` with the Anthropic error type of the chat path's status).
   */
  async #anthropicItem(dialect: SimDialect, params: unknown): Promise<Response> {
    const parsed = dialect.parse(params, {});
    if (!parsed.ok) return Response.json(errored("invalid_request_error", `${parsed.param}: ${parsed.message}`));
    const chat = parsed.value;
    const res = await this.deps.chat({
      model: chat.model,
      messages: chat.messages,
      ...(chat.maxTokens === null ? {} : { max_tokens: chat.maxTokens }),
      stream: false,
      ...(chat.serviceTier ? { service_tier: chat.serviceTier } : {}),
    });
    const body = await res.json().catch(() => null) as Record<string, unknown> | null;
    if (res.status !== 200 || !body) {
      const type = res.status === 429 ? "rate_limit_error" : res.status === 400 ? "invalid_request_error" : "api_error";
      const message = (body?.error as { message?: string } | undefined)?.message ?? `HTTP ${res.status}`;
      return Response.json(errored(type, message));
    }
    const choice = (body.choices as Record<string, unknown>[])[0]!;
    const msg = choice.message as {
      content: string | null;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    };
    const usage = body.usage as {
      prompt_tokens: number;
      completion_tokens: number;
      prompt_tokens_details?: { cached_tokens?: number };
    };
    const tc = msg.tool_calls?.[0];
    const message = dialect.body({
      id: String(body.id),
      model: String(body.model),
      created: Number(body.created),
      text: msg.content,
      toolCall: tc ? { id: tc.id, name: tc.function.name, arguments: tc.function.arguments } : null,
      finish: String(choice.finish_reason),
      usage: {
        prompt: usage.prompt_tokens,
        output: usage.completion_tokens,
        cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
      },
      serviceTier: typeof body.service_tier === "string" ? body.service_tier : null,
    });
    return Response.json({ type: "succeeded", message });
  }
}

function errored(type: string, message: string) {
  return { type: "errored", error: { type: "error", error: { type, message } } };
}

function fileObject(f: StoredFile) {
  return {
    id: f.id,
    object: "file",
    bytes: new TextEncoder().encode(f.text).length,
    created_at: f.createdS,
    filename: f.filename,
    purpose: f.purpose,
  };
}

function openaiInvalid(message: string, param: string | null): Response {
  return errorResponse(400, message, { type: "invalid_request_error", code: null, param });
}

function openaiNotFound(message: string): Response {
  return errorResponse(404, message, { type: "invalid_request_error", code: "not_found" });
}

function anthropicError(status: number, type: string, message: string): Response {
  return Response.json({ type: "error", error: { type, message } }, { status });
}
