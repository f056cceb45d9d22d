/**
 * A fast static responder for the HTTP client benchmark: every request (any method and path)
 * gets the same precomputed `200 text/event-stream` answer, chunked, one chunk per event, in
 * one write, on a keep-alive connection. Raw TCP keeps the server's own cost low so the client
 * is what gets measured.
 *
 * Usage: `deno run --allow-net=127.0.0.1 bench/static_sse_server.ts [--port 0] [--events 64]`.
 * Prints one JSON line `{"port": N, "body_bytes": B}` when listening; stops on SIGTERM/SIGINT.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** The OpenAI-style stream the server answers with: `events` token chunks, a finish, usage, `[DONE]`. */
export function staticSseEvents(events: number): string[] {
  const base = `"id":"chatcmpl-static","object":"chat.completion.chunk","created":0,"model":"static"`;
  const out: string[] = [];
  for (let i = 0; i < events - 3; i++) {
    out.push(`data: {${base},"choices":[{"index":0,"delta":{"content":"tok${i} "},"finish_reason":null}]}\n\n`);
  }
  out.push(`data: {${base},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
  const n = events - 3;
  out.push(
    `data: {${base},"choices":[],"usage":{"prompt_tokens":16,"completion_tokens":${n},"total_tokens":${n + 16}}}\n\n`,
  );
  out.push("data: [DONE]\n\n");
  return out;
}

/** The full response: head plus the chunked body of `staticSseEvents(events)`. */
export function staticSseResponse(events: number): { bytes: Uint8Array; bodyBytes: number } {
  const enc = new TextEncoder();
  const chunks = staticSseEvents(events).map((e) => `${enc.encode(e).length.toString(16)}\r\n${e}\r\n`);
  const body = staticSseEvents(events).join("");
  const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n" +
    "transfer-encoding: chunked\r\n\r\n";
  return { bytes: enc.encode(head + chunks.join("") + "0\r\n\r\n"), bodyBytes: enc.encode(body).length };
}

const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const latin1 = new TextDecoder("latin1");

/** Serves one connection: consumes each request (head + content-length body) and answers it. */
async function serve(conn: Deno.Conn, response: Uint8Array): Promise<void> {
  const buf = new Uint8Array(65536);
  let have = 0;
  try {
    for (;;) {
      const n = await conn.read(buf.subarray(have));
      if (n === null) return;
      have += n;
      let at = 0;
      let answers = 0;
      for (;;) {
        const end = headEnd(buf, at, have);
        if (end === -1) break;
        const m = CONTENT_LENGTH.exec(latin1.decode(buf.subarray(at, end)));
        const next = end + (m ? Number(m[1]) : 0);
        if (next > have) break;
        answers++;
        at = next;
      }
      if (at > 0) {
        buf.copyWithin(0, at, have);
        have -= at;
      }
      if (have === buf.length) return; // a request larger than the buffer: not this benchmark's traffic
      for (; answers > 0; answers--) {
        for (let off = 0; off < response.length;) off += await conn.write(response.subarray(off));
      }
    }
  } catch (err) {
    // Clients that drop connections at the end of a run are expected.
    if (!(err instanceof Deno.errors.ConnectionReset || err instanceof Deno.errors.BrokenPipe)) throw err;
  }
}

/** Serves one connection and closes it however serving ended. */
async function serveAndClose(conn: Deno.Conn, response: Uint8Array): Promise<void> {
  try {
    await serve(conn, response);
  } finally {
    conn.close();
  }
}

function headEnd(b: Uint8Array, from: number, end: number): number {
  for (let i = b.indexOf(13, from); i !== -1 && i + 3 < end; i = b.indexOf(13, i + 1)) {
    if (b[i + 1] === 10 && b[i + 2] === 13 && b[i + 3] === 10) return i + 4;
  }
  return -1;
}

/**
 * Starts a static responder in its own process, so client and server each get a core:
 * `deno` runs this file, `nginx` a one-process nginx with `nginxConfig` in a temp dir. `pid` is the process that
 * serves (nginx runs without a master process), whose CPU {@linkcode processCpuMs} reads.
 */
export async function startStaticServer(
  kind: string,
): Promise<{ url: URL; pid: number; stop: () => Promise<void> }> {
  if (kind === "deno") {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net=127.0.0.1", new URL(import.meta.url).pathname],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let line = "";
    while (!line.includes("\n")) {
      const r = await reader.read();
      if (r.done) throw new Error("static_sse_server exited before listening");
      line += r.value;
    }
    reader.releaseLock();
    const { port } = JSON.parse(line.split("\n")[0]!);
    const stop = async () => {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => undefined); // already closed when the child exited
    };
    return { url: new URL(`http://127.0.0.1:${port}/v1/chat/completions`), pid: child.pid, stop };
  }
  if (kind === "nginx") {
    const dir = await Deno.makeTempDir({ prefix: "bench_nginx_" });
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = probe.addr.port;
    probe.close();
    await Deno.writeTextFile(`${dir}/body.sse`, staticSseEvents(64).join(""));
    await Deno.writeTextFile(`${dir}/nginx.conf`, nginxConfig(dir, port));
    const child = new Deno.Command("nginx", { args: ["-c", `${dir}/nginx.conf`, "-p", dir], stderr: "inherit" })
      .spawn();
    for (let k = 0; k < 100; k++) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50)); // not listening yet
      }
    }
    const stop = async () => {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    };
    return { url: new URL(`http://127.0.0.1:${port}/v1/chat/completions`), pid: child.pid, stop };
  }
  throw new Error(`--server must be deno or nginx, got ${kind}`);
}

/** Clock ticks a second of `/proc/<pid>/stat`'s CPU times (Linux's USER_HZ, 100 on every mainstream build). */
const USER_HZ = 100;

/**
 * A process's CPU time so far (user + system, ms, at 10 ms resolution) from `/proc/<pid>/stat`; null where there is no
 * `/proc` or the process is gone.
 */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(f[11]) + Number(f[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : null;
}

/** A one-process nginx answering any method with the static SSE file, chunked (sub_filter drops the length). */
export function nginxConfig(dir: string, port: number): string {
  return `worker_processes 1; daemon off; master_process off;
pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
events { worker_connections 8192; }
http {
  access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} backlog=4096; root ${dir};
    location / {
      default_type text/event-stream; types { }
      try_files /body.sse =404; error_page 405 =200 /body.sse;
      sub_filter_types text/event-stream; sub_filter 'no-such-text' 'x';
    }
  }
}
`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { port: { type: "string", default: "0" }, events: { type: "string", default: "64" } },
  });
  const port = Number(values.port);
  const events = Number(values.events);
  if (!Number.isInteger(port) || port < 0 || !Number.isInteger(events) || events < 4) {
    console.error("static_sse_server: --port must be an integer >= 0 and --events an integer >= 4");
    Deno.exit(2);
  }
  const { bytes, bodyBytes } = staticSseResponse(events);
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const stop = () => listener.close();
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  console.log(JSON.stringify({ port: listener.addr.port, body_bytes: bodyBytes }));
  try {
    for await (const conn of listener) {
      conn.setNoDelay(true);
      serveAndClose(conn, bytes).catch((err) => console.error("static_sse_server:", err));
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.BadResource)) throw err;
  }
  Deno.exit(0);
}
