/**
 * A stand-in for llama-server in the server tests: `deno run --allow-net _health_server.ts PORT [MODE]` answers
 * `GET /health` with 200 on 127.0.0.1:PORT until SIGTERM. MODE `exit` exits at once with code 3 (a server that
 * dies while loading), `ignore-term` ignores SIGTERM (a server that must be killed).
 */
const [port, mode] = Deno.args;
console.log(`health server on ${port} (${mode ?? "normal"})`);
if (mode === "exit") Deno.exit(3);
if (mode === "ignore-term") Deno.addSignalListener("SIGTERM", () => console.log("SIGTERM ignored"));
Deno.serve(
  { hostname: "127.0.0.1", port: Number(port), onListen: () => {} },
  (req) =>
    new URL(req.url).pathname === "/health" ? new Response('{"status":"ok"}') : new Response("no", { status: 404 }),
);
