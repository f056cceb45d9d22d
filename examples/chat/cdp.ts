/**
 * A small Chrome DevTools Protocol client over Deno's built-in WebSocket: starts headless Chromium with a remote
 * debugging port, opens pages, evaluates script in them and dispatches real input events (mouse presses and
 * releases, typed text). Enough to drive a page as a user would; nothing more.
 *
 * @module
 */

/** Options of {@linkcode launchChromium}. */
export interface LaunchOptions {
  /** The executable (find it with analysis/plots/chromium.ts `findChromium`). */
  executable: string;
  /** Window size in CSS px. @default [1000, 800] */
  size?: [number, number];
  /** How long to wait for the DevTools endpoint, ms. @default 20000 */
  startTimeoutMs?: number;
  /** How long any one command may take, ms. @default 20000 */
  commandTimeoutMs?: number;
}

/** Where an exception or a console error in a page went: the driver reports these. */
export interface PageProblem {
  page: string;
  text: string;
}

/** A running Chromium, driven over one WebSocket (one flat session per page). */
export interface Browser {
  /** The Chromium process's id. */
  readonly pid: number;
  /** Its profile folder (`--user-data-dir`, on every one of its processes' command lines; removed on close). */
  readonly profile: string;
  /** Opens a page at `url` and waits for its load event. */
  newPage(url: string): Promise<Page>;
  /** Uncaught exceptions and console errors of every page so far. */
  problems(): PageProblem[];
  /** Lets pages download files into `dir` (Browser.setDownloadBehavior), named as the page names them. */
  allowDownloads(dir: string): Promise<void>;
  /**
   * Closes the connection, kills the process (SIGKILL after 5 s) and waits for its exit, so no defunct process is left.
   * Safe to call twice. A connection that closes by itself (Chromium exited or was killed) does the same.
   */
  close(): Promise<void>;
}

/** One page (a target attached with a flat session). */
export interface Page {
  readonly id: string;
  /** Runs `expression` in the page (awaiting a promise it returns) and gives back its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** A real left click at page coordinates (CSS px): mousePressed, then mouseReleased. */
  click(x: number, y: number): Promise<void>;
  /** Types `text` into the focused element (one input event, as an IME commit). */
  type(text: string): Promise<void>;
  /**
   * Presses and releases one key as a keyboard does (keyDown, keyUp): a printable character (`"3"`, `"n"`, `"?"`)
   * or a named key (`Enter`, `Tab`, `Escape`, `Backspace`, `ArrowUp`, `ArrowDown`, `ArrowLeft`, `ArrowRight`).
   * `shift` holds Shift (Shift+Tab moves the focus back).
   */
  press(key: string, options?: { shift?: boolean }): Promise<void>;
}

/** The named keys {@linkcode Page.press} knows: their code and Windows virtual key code. */
const NAMED_KEYS: Record<string, { code: string; vk: number; text?: string }> = {
  Enter: { code: "Enter", vk: 13, text: "\r" },
  Tab: { code: "Tab", vk: 9 },
  Escape: { code: "Escape", vk: 27 },
  Backspace: { code: "Backspace", vk: 8 },
  ArrowUp: { code: "ArrowUp", vk: 38 },
  ArrowDown: { code: "ArrowDown", vk: 40 },
  ArrowLeft: { code: "ArrowLeft", vk: 37 },
  ArrowRight: { code: "ArrowRight", vk: 39 },
};

/** The key event fields of a key, or a TypeError for a key {@linkcode Page.press} does not know. */
function keyFields(key: string): { key: string; code: string; windowsVirtualKeyCode: number; text?: string } {
  const named = NAMED_KEYS[key];
  if (named) {
    return { key, code: named.code, windowsVirtualKeyCode: named.vk, ...(named.text ? { text: named.text } : {}) };
  }
  if (key.length !== 1) throw new TypeError(`press: unknown key ${JSON.stringify(key)}`);
  const upper = key.toUpperCase();
  const code = /[0-9]/.test(key) ? `Digit${key}` : /[a-z]/i.test(key) ? `Key${upper}` : key === "?" ? "Slash" : "";
  const vk = /[0-9a-z]/i.test(key) ? upper.charCodeAt(0) : key === "?" ? 191 : 0;
  return { key, code, windowsVirtualKeyCode: vk, text: key };
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** The flags every launch uses: headless, no sandbox (root in CI), no GPU, no background network or throttling. */
export const CDP_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--remote-debugging-port=0",
  "--no-first-run",
  "--disable-dev-shm-usage",
  // Several pages run at once: none of them may be throttled as a background tab (its frames and timers slowed).
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
] as const;

/** Starts Chromium and connects to its DevTools endpoint (the URL it prints on stderr). */
export async function launchChromium(options: LaunchOptions): Promise<Browser> {
  const [w, h] = options.size ?? [1000, 800];
  const profile = await Deno.makeTempDir({ prefix: "gp-cdp-" });
  const child = new Deno.Command(options.executable, {
    args: [...CDP_FLAGS, `--user-data-dir=${profile}`, `--window-size=${w},${h}`, "about:blank"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const kill = async () => {
    if (!killed) {
      killed = true;
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      const hard = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Exited meanwhile.
        }
      }, 5000);
      await child.status;
      clearTimeout(hard);
    }
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  };
  try {
    const wsUrl = await devtoolsUrl(child.stderr, options.startTimeoutMs ?? 20_000);
    return await connect(wsUrl, options.commandTimeoutMs ?? 20_000, kill, { pid: child.pid, profile });
  } catch (e) {
    await kill();
    throw e;
  }
}

/** Reads Chromium's stderr until it names its DevTools WebSocket; keeps draining it afterwards. */
function devtoolsUrl(stderr: ReadableStream<Uint8Array>, timeoutMs: number): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const read = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`Chromium exited before printing its DevTools URL: ${seen.slice(-500)}`);
      seen += value;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m) {
        (async () => {
          while (!(await reader.read()).done);
        })().catch(() => {});
        return m[1]!;
      }
    }
  })();
  return withTimeout(read, timeoutMs, `Chromium printed no DevTools URL (${seen.slice(-300)})`);
}

/**
 * The error of every DevTools call once the connection is gone (Chromium exited, crashed or was killed): one message
 * that says what happened, whatever call met it.
 */
export class BrowserGoneError extends Error {
  constructor(readonly pid: number, readonly method: string) {
    super(`the DevTools connection to Chromium (pid ${pid}) closed during ${method}: the browser exited or was killed`);
    this.name = "BrowserGoneError";
  }
}

async function connect(
  wsUrl: string,
  commandTimeoutMs: number,
  kill: () => Promise<void>,
  proc: { pid: number; profile: string },
): Promise<Browser> {
  const ws = new WebSocket(wsUrl);
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error(`cannot connect to ${wsUrl}`));
    }),
    commandTimeoutMs,
    `the DevTools connection to ${wsUrl} did not open`,
  );
  // After the open, an error is followed by a close, which settles every call; nothing more to do here.
  ws.onerror = () => {};
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const waiters = new Map<string, { resolve(params: unknown): void; reject(e: Error): void }[]>();
  const problems: PageProblem[] = [];
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data as string);
    if (typeof msg.id === "number") {
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      methods.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new Error(`CDP: ${msg.error.message} (${msg.error.code})`));
      else p.resolve(msg.result);
      return;
    }
    const key = `${msg.sessionId ?? ""} ${msg.method}`;
    for (const w of waiters.get(key)?.splice(0) ?? []) w.resolve(msg.params);
    if (msg.method === "Runtime.exceptionThrown") {
      const d = msg.params.exceptionDetails;
      problems.push({ page: msg.sessionId, text: d.exception?.description ?? d.text });
    } else if (msg.method === "Runtime.consoleAPICalled" && msg.params.type === "error") {
      problems.push({
        page: msg.sessionId,
        text: msg.params.args.map((a: { value?: unknown; description?: string }) => a.value ?? a.description).join(" "),
      });
    }
  };
  const methods = new Map<number, string>();
  ws.onclose = () => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.reject(new BrowserGoneError(proc.pid, methods.get(id) ?? "a call"));
    }
    pending.clear();
    for (const [key, ws] of waiters) for (const w of ws) w.reject(new BrowserGoneError(proc.pid, key.split(" ")[1]!));
    waiters.clear();
    // The connection closes when Chromium ends: kill it (if it still runs) and wait for it, so it is never left
    // defunct, even when no one calls close().
    kill().catch(() => {});
  };
  const send = <T>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> =>
    new Promise((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) return reject(new BrowserGoneError(proc.pid, method));
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        methods.delete(id);
        reject(new Error(`CDP ${method}: no answer in ${commandTimeoutMs} ms`));
      }, commandTimeoutMs);
      methods.set(id, method);
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const once = (sessionId: string, method: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) return reject(new BrowserGoneError(proc.pid, method));
      const key = `${sessionId} ${method}`;
      waiters.set(key, [...(waiters.get(key) ?? []), { resolve, reject }]);
    });

  let closed: Promise<void> | null = null;
  return {
    pid: proc.pid,
    profile: proc.profile,
    async newPage(url) {
      const { targetId } = await send<{ targetId: string }>("Target.createTarget", {
        url: "about:blank",
        newWindow: true,
      });
      const { sessionId } = await send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
      await send("Page.enable", {}, sessionId);
      await send("Runtime.enable", {}, sessionId);
      const loaded = once(sessionId, "Page.loadEventFired");
      loaded.catch(() => {}); // awaited below; a close before then must not be an unhandled rejection
      await send("Page.navigate", { url }, sessionId);
      await withTimeout(loaded, commandTimeoutMs, `${url}: no load event`);
      const evaluate = async <T>(expression: string): Promise<T> => {
        const r = await send<
          { result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }
        >(
          "Runtime.evaluate",
          { expression, awaitPromise: true, returnByValue: true },
          sessionId,
        );
        if (r.exceptionDetails) {
          throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
        }
        return r.result.value as T;
      };
      return {
        id: sessionId,
        evaluate,
        async click(x, y) {
          const at = { x, y, button: "left", clickCount: 1 };
          await send("Input.dispatchMouseEvent", { type: "mousePressed", ...at }, sessionId);
          await send("Input.dispatchMouseEvent", { type: "mouseReleased", ...at }, sessionId);
        },
        async type(text) {
          await send("Input.insertText", { text }, sessionId);
        },
        async press(key, options = {}) {
          const f = keyFields(key);
          const modifiers = options.shift || key === "?" ? 8 : 0;
          await send("Input.dispatchKeyEvent", { type: f.text ? "keyDown" : "rawKeyDown", modifiers, ...f }, sessionId);
          await send("Input.dispatchKeyEvent", { type: "keyUp", modifiers, ...f, text: undefined }, sessionId);
        },
      };
    },
    problems: () => [...problems],
    async allowDownloads(dir) {
      await send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: dir, eventsEnabled: true });
    },
    close() {
      closed ??= (async () => {
        try {
          if (ws.readyState === WebSocket.OPEN) await send("Browser.close").catch(() => {});
        } finally {
          ws.close();
          await kill();
        }
      })();
      return closed;
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => timer = setTimeout(() => reject(new Error(`${what} in ${ms} ms`)), ms)),
  ]).finally(() => clearTimeout(timer));
}
