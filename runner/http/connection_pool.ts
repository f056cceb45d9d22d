import { watchAbort } from "./abort_watch.ts";

/** Microtask turns `probe` waits for a read of bytes already received to settle (Deno settles it in 2). */
const PROBE_TURNS = 8;

/** One pooled TCP connection with its own read buffer. */
export class RawConnection {
  readonly conn: Deno.TcpConn;
  readonly buf: Uint8Array;
  /** Exchanges started on this connection; above 1 it is a reused keep-alive connection. */
  uses = 0;
  idleSince = 0;
  closed = false;
  /** The connection has been in the pool (released): it must pass `probe` before it carries a request. */
  pooled = false;
  /** A read started by `probe` that found nothing: the exchange's first read. */
  firstRead: Promise<number | null> | null = null;

  constructor(conn: Deno.TcpConn, bufferBytes: number) {
    this.conn = conn;
    this.buf = new Uint8Array(bufferBytes);
  }

  /**
   * Whether the pooled connection is still clean: true when nothing (no byte, no EOF, no error) has
   * arrived since its last exchange ended. A read is started now; Deno polls a new read at once, so a
   * read of bytes or an end already received settles within a few microtask turns, with no event-loop
   * turn. Settled: the connection carries bytes nobody asked for (a late or unsolicited answer) or was
   * closed by the server, and must be discarded. Pending: it stays pending as the exchange's first read.
   */
  async probe(): Promise<boolean> {
    let settled = false;
    const read = this.conn.read(this.buf);
    read.then(() => settled = true, () => settled = true);
    for (let k = 0; k < PROBE_TURNS && !settled; k++) await undefined;
    if (settled) return false;
    this.firstRead = read;
    return true;
  }

  /** The next read into `buf`: the probe's pending read first. */
  read(): Promise<number | null> {
    const first = this.firstRead;
    if (first === null) return this.conn.read(this.buf);
    this.firstRead = null;
    return first;
  }

  /** Closes the socket once; pending reads and writes on it then fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.conn.close();
    } catch (err) {
      // Already closed by the runtime after a failed read: nothing left to release.
      if (!(err instanceof Deno.errors.BadResource)) throw err;
    }
  }
}

/** Options of one host's pool. */
export interface HostPoolOptions {
  hostname: string;
  port: number;
  /** Most open connections; beyond it requests wait in FIFO order. */
  maxConnections: number;
  /** Idle connections older than this are closed instead of reused. */
  idleTimeoutMs: number;
  /** Read buffer bytes per connection. */
  bufferBytes: number;
}

interface Waiter {
  resolve(c: RawConnection): void;
  reject(err: unknown): void;
  signal: AbortSignal | undefined;
  unwatch: (() => void) | undefined;
  done: boolean;
}

/**
 * Keep-alive connections to one host:port. A connection serves one exchange at a time; idle
 * ones are reused newest first; new ones are opened on demand up to the cap, after which
 * requests wait in a FIFO queue for a released connection or a freed slot.
 */
export class HostPool {
  readonly #o: HostPoolOptions;
  readonly #idle: RawConnection[] = [];
  readonly #live = new Set<RawConnection>();
  #waiters: (Waiter | undefined)[] = [];
  #waitHead = 0;
  /** Slots taken: open connections plus connects in progress. */
  #slots = 0;
  #closed = false;
  /** Connections opened over the pool's life. */
  opened = 0;

  constructor(options: HostPoolOptions) {
    this.#o = options;
  }

  /** An idle connection, or undefined when none is fresh enough. */
  takeIdle(): RawConnection | undefined {
    const c = this.#idle.pop();
    if (c === undefined) return undefined;
    if (performance.now() - c.idleSince <= this.#o.idleTimeoutMs) return c;
    // The stack is newest-first, so everything below the expired one is older still.
    this.#discardIdle(c);
    while (this.#idle.length > 0) this.#discardIdle(this.#idle.pop()!);
    return undefined;
  }

  /** A connection for one exchange: idle, newly opened, or the next released one. Rejects on connect error or abort. */
  acquire(signal: AbortSignal | undefined): Promise<RawConnection> {
    if (this.#closed) return Promise.reject(new Error("HTTP client closed"));
    const idle = this.takeIdle();
    if (idle) return Promise.resolve(idle);
    if (this.#slots < this.#o.maxConnections) {
      this.#slots++;
      return this.#connect(signal);
    }
    return new Promise((resolve, reject) => {
      const w: Waiter = { resolve, reject, signal, unwatch: undefined, done: false };
      if (signal) {
        w.unwatch = watchAbort(signal, () => {
          if (w.done) return;
          w.done = true;
          reject(signal.reason);
        });
      }
      this.#waiters.push(w);
    });
  }

  /** Returns a connection after a complete exchange that left it reusable. */
  release(c: RawConnection): void {
    if (c.closed || this.#closed) return this.discard(c);
    c.pooled = true;
    const w = this.#nextWaiter();
    if (w) return w.resolve(c);
    c.idleSince = performance.now();
    this.#idle.push(c);
  }

  /** Closes a connection that must not be reused and frees its slot. */
  discard(c: RawConnection): void {
    c.close();
    if (!this.#live.delete(c)) return;
    this.#slots--;
    this.#grantSlot();
  }

  /** Closes `c` and opens a fresh connection in its slot (`c` could not carry the request: nothing of it was sent). */
  replace(c: RawConnection, signal: AbortSignal | undefined): Promise<RawConnection> {
    c.close();
    if (!this.#live.delete(c) || this.#closed) return Promise.reject(new Error("HTTP client closed"));
    return this.#connect(signal);
  }

  /** Closes every connection and fails waiting requests. */
  close(): void {
    this.#closed = true;
    for (const c of this.#live) c.close();
    this.#live.clear();
    this.#idle.length = 0;
    for (let w = this.#nextWaiter(); w; w = this.#nextWaiter()) w.reject(new Error("HTTP client closed"));
  }

  #discardIdle(c: RawConnection): void {
    c.close();
    this.#live.delete(c);
    this.#slots--;
  }

  /** Opens a connection in an already counted slot; on failure the slot is freed. */
  async #connect(signal: AbortSignal | undefined): Promise<RawConnection> {
    let conn: Deno.TcpConn;
    try {
      conn = await Deno.connect({ hostname: this.#o.hostname, port: this.#o.port, transport: "tcp" });
    } catch (err) {
      this.#slots--;
      this.#grantSlot();
      throw err;
    }
    conn.setNoDelay(true);
    this.opened++;
    const c = new RawConnection(conn, this.#o.bufferBytes);
    this.#live.add(c);
    if (this.#closed) {
      this.discard(c);
      throw new Error("HTTP client closed");
    }
    if (signal?.aborted) {
      // Aborted while connecting: the fresh connection still serves the next request.
      this.release(c);
      throw signal.reason;
    }
    return c;
  }

  /** Hands a freed slot to the first waiter, which then connects. */
  #grantSlot(): void {
    if (this.#closed || this.#slots >= this.#o.maxConnections) return;
    const w = this.#nextWaiter();
    if (!w) return;
    this.#slots++;
    this.#connect(w.signal).then(w.resolve, w.reject);
  }

  #nextWaiter(): Waiter | undefined {
    while (this.#waitHead < this.#waiters.length) {
      const w = this.#waiters[this.#waitHead]!;
      this.#waiters[this.#waitHead++] = undefined;
      if (this.#waitHead > 1024 && this.#waitHead * 2 > this.#waiters.length) {
        this.#waiters = this.#waiters.slice(this.#waitHead);
        this.#waitHead = 0;
      }
      if (w.done) continue;
      w.done = true;
      w.unwatch?.();
      return w;
    }
    return undefined;
  }
}
