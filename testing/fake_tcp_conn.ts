/**
 * A TCP connection for tests of the raw client's pool on a fake connect (runner/http/connection_pool.ts `connect`):
 * it never reads anything, and it records whether it was closed.
 *
 * @module
 */

/** The fake connection: `id` names it in a test, `closed` says whether the pool closed it. */
export interface FakeTcpConn {
  readonly id: number;
  closed: boolean;
  setNoDelay(): void;
  read(): Promise<number | null>;
  close(): void;
}

/**
 * A connection numbered `id` whose reads never settle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fakeTcpConn } from "./fake_tcp_conn.ts";
 * const c = fakeTcpConn(3);
 * c.close();
 * assert.deepEqual([c.id, c.closed], [3, true]);
 * ```
 */
export function fakeTcpConn(id: number): FakeTcpConn {
  return {
    id,
    closed: false,
    setNoDelay() {},
    read: () => new Promise<number | null>(() => {}),
    close() {
      this.closed = true;
    },
  };
}

/** The fake as the `Deno.TcpConn` the pool's `connect` resolves to (the pool uses only the members above). */
export function asTcpConn(c: FakeTcpConn): Deno.TcpConn {
  return c as unknown as Deno.TcpConn;
}
