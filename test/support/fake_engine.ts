/**
 * A stand-in for a real engine's monitoring endpoints, on 127.0.0.1 (free port): `GET /metrics` answers what
 * `metrics()` returns (Prometheus text; a Response to misbehave), `GET /slots` what `slots()` returns (JSON), `GET
 * /sim/timeline` 404, `GET /v1/models` a one-model list; chat calls go to a fault server (its `ok-sse` / `ok-json`
 * answers). Every request's path is kept in `seen`.
 *
 * @module
 */
import { type FaultServer, startFaultServer } from "./fault_server.ts";

/** What the fake engine answers. */
export interface FakeEngineOptions {
  metrics: () => string | Response;
  slots?: () => unknown;
}

/** A running fake engine. */
export interface FakeEngine {
  url: string;
  seen: string[];
  chat: FaultServer;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 that answers what `front` answers (non-null) and forwards every other request to `chat`. */
export interface FrontedServer {
  url: string;
  chat: FaultServer;
  close(): Promise<void>;
}

/** Starts a fault server for chat calls and, before it, a server answering what `front` returns (null: forward). */
export async function startFronted(front: (req: Request, path: string) => Response | null): Promise<FrontedServer> {
  const chat = await startFaultServer({ tokens: 2 });
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const answer = front(req, path);
    if (answer) return answer;
    const res = await fetch(`${chat.url}${path}`, { method: req.method, headers: req.headers, body: await req.text() });
    return new Response(res.body, { status: res.status, headers: res.headers });
  });
  return {
    url: `http://127.0.0.1:${srv.addr.port}`,
    chat,
    close: async () => {
      await srv.shutdown();
      await chat.close();
    },
  };
}

/** Starts a fake engine. */
export async function startFakeEngine(options: FakeEngineOptions): Promise<FakeEngine> {
  const seen: string[] = [];
  const server = await startFronted((req, path) => {
    seen.push(path);
    if (req.method === "GET" && path === "/metrics") {
      const m = options.metrics();
      return typeof m === "string" ? new Response(m, { headers: { "content-type": "text/plain" } }) : m;
    }
    if (req.method === "GET" && path === "/slots") {
      return options.slots ? Response.json(options.slots()) : new Response("no slots", { status: 501 });
    }
    if (req.method === "GET" && path === "/v1/models") return Response.json({ data: [{ id: "fake.gguf" }] });
    if (req.method === "GET") return new Response("not found", { status: 404 });
    return null;
  });
  return { ...server, seen };
}

/** llama-server's `/metrics` with the given gauges (the names of test/fixtures/server_metrics/). */
export function llamacppMetrics(processing: number, deferred: number): string {
  return [
    "# HELP llamacpp:requests_processing Number of requests processing",
    "# TYPE llamacpp:requests_processing gauge",
    `llamacpp:requests_processing ${processing}`,
    "# HELP llamacpp:requests_deferred Number of requests deferred",
    "# TYPE llamacpp:requests_deferred gauge",
    `llamacpp:requests_deferred ${deferred}`,
    "",
  ].join("\n");
}
