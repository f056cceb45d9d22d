/**
 * Several hosts on this machine for a test: network namespaces joined by veth
 * pairs, every address inside namespaces the test creates (nothing is added to
 * the machine's own namespace, no traffic leaves it). One namespace is the
 * target's; each client namespace has its own link to it, on its own /24 of
 * 10.213.0.0/16: client i is 10.213.i.2, and reaches the target at 10.213.i.1.
 * Needs root and iproute2 (`ip netns`); {@linkcode netnsProblem} says why not.
 *
 * @module
 */

/** Why this machine cannot make network namespaces, or null when it can. */
export function netnsProblem(): string | null {
  if (Deno.uid() !== 0) return "not root (ip netns needs CAP_NET_ADMIN)";
  try {
    const out = new Deno.Command("ip", { args: ["netns", "list"], stdout: "null", stderr: "piped" }).outputSync();
    if (!out.success) return `ip netns list failed: ${new TextDecoder().decode(out.stderr).trim()}`;
  } catch (e) {
    return `no ip command (iproute2): ${(e as Error).message}`;
  }
  return null;
}

/** The namespaces of one test. */
export interface Hosts {
  /** The target's namespace. */
  target: string;
  /** The clients' namespaces, client i at index i. */
  clients: string[];
  /** The target's address as client i reaches it. */
  targetAddr(i: number): string;
  /** `ip netns exec NS CMD ARGS…` as Deno.Command arguments (for `ip`). */
  exec(ns: string, cmd: string, args: readonly string[]): string[];
  /** Stops every process still in the namespaces (each by its pid) and deletes them; safe to call twice. */
  remove(): Promise<void>;
}

async function ip(args: string[]): Promise<string> {
  const out = await new Deno.Command("ip", { args, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`ip ${args.join(" ")}: ${dec.decode(out.stderr).trim()}`);
  return dec.decode(out.stdout);
}

/**
 * Makes a target namespace and `n` client namespaces named after a prefix
 * unique to this process (`gp<pid>-t`, `gp<pid>-c0`, …), each client linked to
 * the target by its own veth pair. On any failure what was made is removed.
 */
export async function makeHosts(n: number): Promise<Hosts> {
  const prefix = `gp${Deno.pid}`;
  const target = `${prefix}-t`;
  const clients = Array.from({ length: n }, (_, i) => `${prefix}-c${i}`);
  const made: string[] = [];
  const remove = async () => {
    for (const ns of made.splice(0).reverse()) {
      const pids = (await ip(["netns", "pids", ns])).split(/\s+/).filter(Boolean).map(Number);
      // Only this test's processes can be in its namespaces.
      for (const pid of pids) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch (e) {
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        }
      }
      // Deleting a namespace deletes its veth ends, and with them their peers.
      await ip(["netns", "del", ns]);
    }
  };
  try {
    for (const ns of [target, ...clients]) {
      await ip(["netns", "add", ns]);
      made.push(ns);
      await ip(["-n", ns, "link", "set", "lo", "up"]);
    }
    for (const [i, ns] of clients.entries()) {
      // Interface names stay under 16 characters: gp<pid>c<i> in the client, gp<pid>t<i> in the target.
      const c = `${prefix}c${i}`, t = `${prefix}t${i}`;
      await ip(["link", "add", c, "netns", ns, "type", "veth", "peer", "name", t, "netns", target]);
      await ip(["-n", target, "addr", "add", `10.213.${i}.1/24`, "dev", t]);
      await ip(["-n", ns, "addr", "add", `10.213.${i}.2/24`, "dev", c]);
      await ip(["-n", target, "link", "set", t, "up"]);
      await ip(["-n", ns, "link", "set", c, "up"]);
    }
  } catch (e) {
    await remove();
    throw e;
  }
  return {
    target,
    clients,
    targetAddr: (i) => `10.213.${i}.1`,
    exec: (ns, cmd, args) => ["netns", "exec", ns, cmd, ...args],
    remove,
  };
}
