import { Fifo } from "../../lib/fifo.ts";
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
  /** Most connects in progress at once; beyond it waiting requests open none until one ends. @default MAX_CONNECTING */
  maxConnecting?: number;
  /** Opens one TCP connection (tests give their own). @default Deno.connect */
  connect?: (o: Deno.ConnectOptions) => Promise<Deno.TcpConn>;
}

/**
 * Connects in progress at once, per host. A burst of arrivals that find no idle connection (a client fallen behind)
 * would otherwise open thousands at once and overflow the server's accept queue, whose usual sizes are 511 (nginx) to
 * 2,048 (uvicorn): the kernel then drops connections' SYNs or ACKs and retransmits them after 1, 3 and 7 s, and the
 * requests on them carry those seconds. 128 connects at once open thousands of connections a second on a local
 * network, and the requests held back meanwhile take the connections the others release.
 */
export const MAX_CONNECTING = 128;

interface Waiter {
  resolve(c: RawConnection): void;
  reject(err: unknown): void;
  signal: AbortSignal | undefined;
  unwatch: (() => void) | undefined;
  /** Served, failed or aborted: no longer waiting. */
  done: boolean;
}

/**
 * Keep-alive connections to one host:port. A connection serves one exchange at a time; idle ones are reused newest
 * first. A request that finds none waits in a FIFO queue and, while the caps leave room, opens a connection: it takes
 * whichever comes first, a connection another request releases (released ones go to the oldest waiting request) or its
 * own when it finishes opening. A connection that finishes opening after its request was served goes to the oldest
 * waiting request, or stays idle. So the pool opens no more connections than requests that found none idle, and a
 * request never waits for its own connect while another's connection sits idle (Go's `net/http` does the same). In a
 * burst — the first arrivals of a fast schedule, when nothing is idle yet, or a client fallen behind — requests reuse
 * the first connections as they come back instead of each opening its own, and at most {@linkcode MAX_CONNECTING}
 * connects are in progress. With each request waiting for its own connect, a runner behind at 8,000 req/s on loopback
 * opened all 4,096 connections and nginx's accept queue dropped their SYNs: requests went out 1, 3 or 7 s late, the
 * kernel's retransmissions (bench/README.md, "Issue 33, fourth pass"). A connect that fails fails the request that
 * opened it, if it still waits.
 */
export class HostPool {
  readonly #o: HostPoolOptions;
  readonly #idle: RawConnection[] = [];
  readonly #live = new Set<RawConnection>();
  /** Requests waiting for a connection, oldest first. */
  readonly #waiters = new Fifo<Waiter>();
  /** Waiting requests that have not opened a connection (the cap held them back), oldest first. */
  readonly #unopened = new Fifo<Waiter>();
  /** Slots taken: open connections plus connects in progress. */
  #slots = 0;
  /** Connects in progress. */
  #connecting = 0;
  readonly #maxConnecting: number;
  #closed = false;
  /** Connections opened over the pool's life. */
  opened = 0;

  constructor(options: HostPoolOptions) {
    this.#o = options;
    this.#maxConnecting = options.maxConnecting ?? MAX_CONNECTING;
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

  /**
   * A connection for one exchange: an idle one, else the first to come of a released one and the one it opens.
   * Rejects when the connect this request started fails while it still waits, or on abort.
   */
  acquire(signal: AbortSignal | undefined): Promise<RawConnection> {
    if (this.#closed) return Promise.reject(new Error("HTTP client closed"));
    const idle = this.takeIdle();
    if (idle) return Promise.resolve(idle);
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
      if (this.#mayOpen()) this.#open(w);
      else this.#unopened.push(w);
    });
  }

  /** Returns a connection after a complete exchange that left it reusable. */
  release(c: RawConnection): void {
    if (c.closed || this.#closed) return this.discard(c);
    c.pooled = true;
    this.#handOver(c);
  }

  /** Closes a connection that must not be reused and frees its slot. */
  discard(c: RawConnection): void {
    c.close();
    if (!this.#live.delete(c)) return;
    this.#slots--;
    this.#grantSlot();
  }

  /** Closes `c` and opens a fresh connection in its slot (`c` could not carry the request: nothing of it was sent). */
  async replace(c: RawConnection, signal: AbortSignal | undefined): Promise<RawConnection> {
    c.close();
    if (!this.#live.delete(c) || this.#closed) throw new Error("HTTP client closed");
    let fresh: RawConnection;
    try {
      fresh = await this.#connect();
    } catch (err) {
      this.#slots--;
      this.#grantSlot();
      throw err;
    }
    if (this.#closed) {
      this.discard(fresh);
      throw new Error("HTTP client closed");
    }
    if (signal?.aborted) {
      // Aborted while connecting: the fresh connection still serves the next request.
      this.#handOver(fresh);
      throw signal.reason;
    }
    return fresh;
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

  /**
   * A connection to the oldest waiting request, else to the idle stack. A fresh one handed on at once needs no probe
   * (nothing can have arrived on it); one that sat idle does.
   */
  #handOver(c: RawConnection): void {
    const w = this.#nextWaiter();
    if (w) return w.resolve(c);
    c.pooled = true;
    c.idleSince = performance.now();
    this.#idle.push(c);
  }

  /**
   * Opens a connection in a slot taken now for `origin`, the request that opened it: its connection while it waits (else
   * the oldest waiting request's, or idle), and its failure while it waits (else nobody's).
   */
  #open(origin: Waiter): void {
    this.#slots++;
    this.#connecting++;
    this.#connect().then((c) => {
      this.#connecting--;
      if (this.#closed) return this.discard(c);
      // Its own request first: so every waiting request keeps a connect of its own, or a place in `#unopened`.
      if (claim(origin)) origin.resolve(c);
      else this.#handOver(c);
      this.#grantSlot();
    }, (err) => {
      this.#connecting--;
      this.#slots--;
      if (claim(origin)) origin.reject(err);
      this.#grantSlot();
    });
  }

  /** A new connection, counted; its slot is the caller's, and so are freeing it on failure and the closed pool. */
  async #connect(): Promise<RawConnection> {
    const conn = await (this.#o.connect ?? Deno.connect)({
      hostname: this.#o.hostname,
      port: this.#o.port,
      transport: "tcp",
    });
    conn.setNoDelay(true);
    this.opened++;
    const c = new RawConnection(conn, this.#o.bufferBytes);
    this.#live.add(c);
    return c;
  }

  /** Whether a waiting request may open a connection now: under both caps. */
  #mayOpen(): boolean {
    return this.#slots < this.#o.maxConnections && this.#connecting < this.#maxConnecting;
  }

  /** A freed slot or connect opens a connection for the oldest waiting request that the caps held back. */
  #grantSlot(): void {
    if (this.#closed || !this.#mayOpen()) return;
    for (let w = this.#unopened.shift(); w; w = this.#unopened.shift()) {
      if (w.done) continue;
      return this.#open(w);
    }
  }

  #nextWaiter(): Waiter | undefined {
    for (let w = this.#waiters.shift(); w; w = this.#waiters.shift()) if (claim(w)) return w;
    return undefined;
  }
}

/** Takes `w` out of waiting: true when it still waited (it is then done, its abort no longer watched). */
function claim(w: Waiter): boolean {
  if (w.done) return false;
  w.done = true;
  w.unwatch?.();
  return true;
}
