/**
 * The AWS Bedrock Converse / ConverseStream dialect: `POST /model/{modelId}/converse` (a whole JSON answer) and
 * `/model/{modelId}/converse-stream` (an AWS event stream), signed with SigV4 (service `bedrock`) from the standard
 * AWS environment variables, or sent with a Bedrock API key (`auth: "bearer"`). docs/dialects/bedrock-converse.md
 * says how the workload maps to the body and what each answer becomes in the log.
 *
 * @module
 */
import type { Sha256 } from "@aws-crypto/sha256-js";
import type { SignatureV4 } from "@smithy/signature-v4";
import { createRequire } from "node:module";
import { z } from "zod";
import type { WorkloadCase } from "../../schema/mod.ts";
import { InputError } from "../../schema/errors.ts";
import { parseArgs } from "./answer_base.ts";
import { AwsEventStreamDecoder, BAD_FRAME_KIND } from "./aws_eventstream.ts";
import { BedrockAnswer } from "./bedrock_answer.ts";
import type {
  Dialect,
  DialectCall,
  DialectRouteSpec,
  ErrorVerdict,
  PreparedRoute,
  StreamDecoder,
  WireMessage,
} from "./dialect.ts";
import { checkedBaseUrl, withPath } from "./url.ts";

// The AWS signing packages are loaded when a SigV4 route is prepared (before ms 0), not by every run: importing
// them cost every run's start-up ~0.1 s of CPU.
const require = createRequire(import.meta.url);

/** The route's `dialect_options` for Bedrock. */
export const BedrockOptions = z.object({
  /** The AWS region signed for, and of the default endpoint. @default AWS_REGION, else AWS_DEFAULT_REGION */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, "not an AWS region such as us-east-1").optional(),
  /** SigV4 from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY(/AWS_SESSION_TOKEN), or a Bedrock API key. @default "sigv4" */
  auth: z.enum(["sigv4", "bearer"]).default("sigv4"),
  /** The service tier asked for (`serviceTier.type`). */
  service_tier: z.enum(["priority", "default", "flex", "reserved"]).optional(),
  /** `performanceConfig.latency`: latency-optimized inference where the model offers it. */
  latency: z.enum(["standard", "optimized"]).optional(),
  /** How `expected_output_schema` is sent: `outputConfig.textFormat`, or not at all. @default "output_config" */
  structured_output: z.enum(["output_config", "none"]).default("output_config"),
}).strict();
export type BedrockOptions = z.infer<typeof BedrockOptions>;

/** The environment variable of a Bedrock API key when the route names no `api_key_env`. */
export const BEARER_ENV = "AWS_BEARER_TOKEN_BEDROCK";

/** The endpoint path of one call (the model id URL-encoded: inference profile ids and ARNs hold `:` and `/`). */
function callPath(model: string, stream: boolean): string {
  return `/model/${encodeURIComponent(model)}/${stream ? "converse-stream" : "converse"}`;
}

function prepare(spec: DialectRouteSpec): PreparedRoute {
  const env = spec.env ?? ((n: string) => Deno.env.get(n));
  const parsed = BedrockOptions.safeParse(spec.options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => {
      const field = i.code === "unrecognized_keys" ? i.keys.join(", ") : i.path.map(String).join(".");
      return `${spec.where}.dialect_options${field ? `.${field}` : ""}: ${i.message}`;
    });
    throw new InputError(`${spec.where}: bad dialect_options for bedrock-converse`, problems);
  }
  const o = parsed.data;
  const region = o.region ?? (env("AWS_REGION") || env("AWS_DEFAULT_REGION") || null);
  if (region === null) {
    throw new InputError(
      `${spec.where}.dialect_options.region: not set, and neither AWS_REGION nor AWS_DEFAULT_REGION is in the environment`,
    );
  }
  if (o.region === undefined && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) {
    throw new InputError(`${spec.where}: the region from AWS_REGION/AWS_DEFAULT_REGION is not an AWS region`);
  }
  const base = checkedBaseUrl(spec.url || `https://bedrock-runtime.${region}.amazonaws.com`, `${spec.where}.url`);
  // A user may give the full endpoint of either call: keep only the base.
  for (const stream of [true, false]) {
    const p = callPath(spec.model, stream);
    if (base.pathname.endsWith(p)) base.pathname = base.pathname.slice(0, -p.length) || "/";
  }
  const headers: Record<string, string> = { "content-type": "application/json" };
  let sign: PreparedRoute["sign"] = null;
  if (o.auth === "bearer") {
    const key = spec.key ?? env(BEARER_ENV) ?? null;
    if (!key) {
      throw new InputError(`${spec.where}: auth "bearer" needs a key: set ${BEARER_ENV} or the route's api_key_env`);
    }
    headers.authorization = `Bearer ${key}`;
  } else {
    sign = sigv4Signer(region, env, spec.where);
  }
  const options: Record<string, unknown> = { region, auth: o.auth, structured_output: o.structured_output };
  if (o.service_tier) options.service_tier = o.service_tier;
  if (o.latency) options.latency = o.latency;
  return {
    url: (stream) => withPath(base, callPath(spec.model, stream)),
    headers,
    secretHeaders: ["authorization", "x-amz-security-token"],
    sign,
    serviceTier: o.service_tier ?? null,
    options,
  };
}

/** SigV4 over one call, with the credentials read from the environment now (a missing one names its variable). */
function sigv4Signer(
  region: string,
  env: (name: string) => string | undefined,
  where: string,
): NonNullable<PreparedRoute["sign"]> {
  const need = (name: string) => {
    const v = env(name);
    if (!v) throw new InputError(`${where}: auth "sigv4" needs ${name} in the environment (it is not set)`);
    return v;
  };
  const accessKeyId = need("AWS_ACCESS_KEY_ID");
  const secretAccessKey = need("AWS_SECRET_ACCESS_KEY");
  const sessionToken = env("AWS_SESSION_TOKEN") || undefined;
  const aws = {
    ...require("@smithy/signature-v4") as { SignatureV4: typeof SignatureV4 },
    ...require("@aws-crypto/sha256-js") as { Sha256: typeof Sha256 },
  };
  const signer = new aws.SignatureV4({
    service: "bedrock",
    region,
    credentials: sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey },
    sha256: aws.Sha256,
  });
  return async ({ url, headers, body }) => {
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of url.searchParams) {
      const had = query[k];
      query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
    }
    const signed = await signer.sign({
      method: "POST",
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...headers, host: url.host },
      body,
    });
    // The HTTP clients write `host` themselves, from the same URL (url.host): it is signed, not passed on.
    const { host: _host, ...out } = signed.headers;
    return out;
  };
}

/** A JSON-schema name Bedrock accepts, from the case's class. */
const schemaName = (cls: string) => `${cls.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 57)}_output`;

type Block = Record<string, unknown>;

/** The neutral conversation as Converse `system` and `messages` (consecutive same-role turns merged: Bedrock alternates). */
export function converseMessages(messages: readonly WireMessage[]): { system: Block[]; messages: Block[] } {
  const system: Block[] = [];
  const out: { role: "user" | "assistant"; content: Block[] }[] = [];
  const add = (role: "user" | "assistant", blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "system") system.push({ text: m.content });
    else if (m.role === "user") add("user", [{ text: m.content }]);
    else if (m.role === "tool") {
      add("user", [{ toolResult: { toolUseId: m.tool_call_id, content: [{ text: m.content }] } }]);
    } else if (m.role === "assistant") {
      const blocks: Block[] = m.content ? [{ text: m.content }] : [];
      for (const tc of m.tool_calls ?? []) {
        // Bedrock takes a tool's input as a JSON object: arguments that are not one are sent as {}.
        blocks.push({
          toolUse: { toolUseId: tc.id, name: tc.function.name, input: parseArgs(tc.function.arguments) ?? {} },
        });
      }
      add("assistant", blocks);
    }
  }
  return { system, messages: out };
}

function body(c: WorkloadCase, messages: readonly WireMessage[], call: DialectCall, route: PreparedRoute): string {
  const conv = converseMessages(messages);
  const b: Record<string, unknown> = { messages: conv.messages };
  if (conv.system.length) b.system = conv.system;
  b.inferenceConfig = { maxTokens: call.maxTokens };
  if (c.tools.length) {
    b.toolConfig = {
      tools: c.tools.map((t) => ({
        toolSpec: {
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          inputSchema: { json: t.parameters },
        },
      })),
    };
  }
  if (c.expected_output_schema && route.options.structured_output !== "none") {
    b.outputConfig = {
      textFormat: {
        type: "json_schema",
        structure: { jsonSchema: { schema: JSON.stringify(c.expected_output_schema), name: schemaName(c.class) } },
      },
    };
  }
  if (route.serviceTier) b.serviceTier = { type: route.serviceTier };
  if (typeof route.options.latency === "string") b.performanceConfig = { latency: route.options.latency };
  return JSON.stringify(b);
}

/**
 * A non-2xx Bedrock answer: 429 (ThrottlingException, ModelNotReadyException) and 503 (ServiceUnavailableException)
 * are refusals for load; anything else (400 ValidationException, 403 AccessDeniedException, 404, 408, 424, 500) is
 * an `http_error`. The kind is `http_<status>` whatever `x-amzn-errortype` or the body say (both untrusted).
 */
function classifyError(status: number, _headers: ReadonlyMap<string, string>, _body: string): ErrorVerdict {
  return { kind: `http_${status}`, outcome: status === 429 || status === 503 ? "rejected" : "http_error" };
}

/** The binary event stream's decoder, its framing problem named `bad_eventstream_frame` for the attempt. */
function newDecoder(): StreamDecoder {
  const d = new AwsEventStreamDecoder();
  return {
    push: (bytes) => d.push(bytes),
    end: () => d.end(),
    get problem() {
      return d.problem === null ? null : { kind: BAD_FRAME_KIND, message: d.problem };
    },
  };
}

/** The Bedrock Converse dialect. */
export const bedrockConverseDialect: Dialect = {
  name: "bedrock-converse",
  prepare,
  body,
  framing: "aws-eventstream",
  streamContentType: "application/vnd.amazon.eventstream",
  newDecoder,
  newAnswer: () => new BedrockAnswer(),
  classifyError,
  // Bedrock sends no rate-limit headers: its quotas are account settings (Service Quotas), not response headers.
  readLimits: () => null,
};
