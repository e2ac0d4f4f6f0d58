/**
 * Sockets from the kernel's own tables: `/proc/net/tcp` and `/proc/net/tcp6` name each TCP socket's two ends,
 * its state, the uid that owns it and its inode; `/proc/<pid>/fd/*` links name the inode a process holds
 * (`socket:[<inode>]`). This is how the server learns WHICH LOCAL USER opened a connection to it (on loopback
 * both ends of a connection are in the table: the client's end is the row whose local address is the peer's),
 * and later which process holds a port ("port taken by pid N", restart by the port's owner).
 *
 * Read-only. The tables sit behind {@link ProcSource} so tests can hand in a fake.
 * @module
 */
import { LINUX_PROC, type ProcSource } from "./proc_table.ts";

/** One end of a TCP connection. */
export interface Endpoint {
  /** Dotted IPv4 (an IPv4-mapped IPv6 address is given as its IPv4), else the IPv6 address as 8 hex groups. */
  address: string;
  port: number;
}

/** One row of /proc/net/tcp{,6}. */
export interface SocketRow {
  local: Endpoint;
  remote: Endpoint;
  /** The kernel's TCP state number (1 established, 10 listen). */
  state: number;
  uid: number;
  inode: number;
}

/** TCP_ESTABLISHED and TCP_LISTEN in the kernel's numbering. */
export const TCP_ESTABLISHED = 1;
export const TCP_LISTEN = 10;
/** ESTABLISHED, FIN_WAIT1, FIN_WAIT2: the states of a client's end while its request is being served. */
const CLIENT_STATES: ReadonlySet<number> = new Set([1, 4, 5]);

/** The 4-byte groups of /proc/net/tcp are in host byte order: little-endian on every machine asm runs on. */
function wordBytes(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hex.length; i += 8) {
    const word = hex.slice(i, i + 8);
    for (let b = 3; b >= 0; b--) out.push(parseInt(word.slice(b * 2, b * 2 + 2), 16));
  }
  return out;
}

function addressOf(hex: string): string | null {
  if (!/^[0-9A-Fa-f]+$/.test(hex) || (hex.length !== 8 && hex.length !== 32)) return null;
  const bytes = wordBytes(hex);
  if (bytes.length === 4) return bytes.join(".");
  // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket: the same peer as a.b.c.d
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(":");
}

function endpointOf(text: string): Endpoint | null {
  const [hex, portHex] = text.split(":");
  const address = addressOf(hex ?? "");
  const port = parseInt(portHex ?? "", 16);
  return address === null || !Number.isInteger(port) ? null : { address, port };
}

/** Parses the text of /proc/net/tcp or /proc/net/tcp6 (the header line and malformed rows are skipped). */
export function parseSocketTable(text: string): SocketRow[] {
  const rows: SocketRow[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
    if (f.length < 10 || !/^\d+:$/.test(f[0])) continue;
    const local = endpointOf(f[1]);
    const remote = endpointOf(f[2]);
    const state = parseInt(f[3], 16);
    const uid = Number(f[7]);
    const inode = Number(f[9]);
    if (!local || !remote || !Number.isInteger(uid) || !Number.isInteger(inode)) continue;
    rows.push({ local, remote, state, uid, inode });
  }
  return rows;
}

/** Every TCP socket of this network namespace, or null when the platform has no such tables. */
export function socketTable(proc: ProcSource = LINUX_PROC): SocketRow[] | null {
  const v4 = proc.readText("/proc/net/tcp");
  const v6 = proc.readText("/proc/net/tcp6");
  if (v4 === null && v6 === null) return null;
  return [...parseSocketTable(v4 ?? ""), ...parseSocketTable(v6 ?? "")];
}

/** Normalises an address as Deno reports it (`127.0.0.1`, `::ffff:127.0.0.1`, `::1`) to a row's spelling. */
function sameAddress(reported: string, row: string): boolean {
  const bare = reported.replace(/^\[|\]$/g, "");
  const v4 = bare.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)?.[1] ?? bare;
  if (v4 === row) return true;
  if (!row.includes(":") || !v4.includes(":")) return false;
  return expandV6(v4) === row;
}

function expandV6(address: string): string | null {
  const [head, tail] = address.split("::");
  const h = head ? head.split(":") : [];
  const t = tail !== undefined ? (tail ? tail.split(":") : []) : [];
  if (tail === undefined && h.length !== 8) return null;
  const groups = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return groups.map((g) => parseInt(g, 16).toString(16)).join(":");
}

/** Who opened a connection: the uid, "unknown" where the platform cannot say, "not found" when no row matches. */
export type PeerOwner = { uid: number } | "unknown" | "not found";

/**
 * The uid owning the client end of a loopback connection to `serverPort`: the established row whose local end is
 * the peer's address and port and whose remote end is the server's port. Read fresh on every call (see
 * {@link PeerOwners} for the per-connection memory that is safe).
 */
export function peerOwner(
  peer: { hostname: string; port: number },
  serverPort: number,
  proc: ProcSource = LINUX_PROC,
): PeerOwner {
  return connectionRows(peer, serverPort, proc).owner;
}

/** The client end's owner, and the inode of the server's own end of the same connection (null when unseen). */
function connectionRows(
  peer: { hostname: string; port: number },
  serverPort: number,
  proc: ProcSource,
): { owner: PeerOwner; serverInode: number | null } {
  let read = false;
  let serverInode: number | null = null;
  // tcp6 only when tcp has no answer: each read walks the kernel's whole connection hash (about 5 ms here), and
  // a connection's client end is one socket, in one of the two tables
  for (const path of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = proc.readText(path);
    if (text === null) continue;
    read = true;
    let owner: PeerOwner | null = null;
    for (const row of parseSocketTable(text)) {
      // only a connection's live row (established, or half-closed by a client that sent its request and shut
      // its side): a TIME_WAIT row of an earlier connection on the same ports is owned by no one (the kernel
      // shows uid 0) and must never answer for the one being served
      if (
        CLIENT_STATES.has(row.state) && row.local.port === peer.port && row.remote.port === serverPort &&
        sameAddress(peer.hostname, row.local.address)
      ) {
        owner = { uid: row.uid };
      } else if (
        row.state === TCP_ESTABLISHED && row.local.port === serverPort && row.remote.port === peer.port &&
        sameAddress(peer.hostname, row.remote.address)
      ) {
        serverInode = row.inode;
      }
    }
    if (owner !== null) return { owner, serverInode };
  }
  return { owner: read ? "not found" : "unknown", serverInode };
}

/**
 * Who opened each connection, asked of the kernel once per connection. The socket table costs a walk of the
 * kernel's whole TCP hash (~4.5 ms on a machine with 262,144 buckets): too much for every request of a page
 * polling every few seconds. Caching by the client's port alone is unsafe (ports are reused, on loopback even from
 * TIME_WAIT), so the memory is tied to the server's OWN end of the connection: the file descriptor this process
 * holds for it, and that descriptor's `socket:[inode]`. While that descriptor still names that socket, the
 * connection is the same one (a new connection from the same client port needs the old 4-tuple gone, and the old
 * server socket closed), and so is its owner; a single readlink checks it.
 */
export class PeerOwners {
  #proc: ProcSource;
  #max: number;
  #known = new Map<string, { uid: number; fd: string; link: string }>();

  constructor(options: { proc?: ProcSource; max?: number } = {}) {
    this.#proc = options.proc ?? LINUX_PROC;
    this.#max = options.max ?? 256;
  }

  /** Who opened the connection from `peer` to `serverPort`. */
  ownerOf(peer: { hostname: string; port: number }, serverPort: number): PeerOwner {
    const key = `${peer.hostname}|${peer.port}|${serverPort}`;
    const known = this.#known.get(key);
    if (known && this.#proc.readLink(`/proc/self/fd/${known.fd}`) === known.link) return { uid: known.uid };
    this.#known.delete(key);
    const { owner, serverInode } = connectionRows(peer, serverPort, this.#proc);
    if (typeof owner === "object" && serverInode !== null) {
      const link = `socket:[${serverInode}]`;
      const fd = (this.#proc.listDir?.("/proc/self/fd") ?? []).find((fd) =>
        this.#proc.readLink(`/proc/self/fd/${fd}`) === link
      );
      if (fd !== undefined) {
        // the oldest connection's memory goes first; a forgotten one is only asked of the kernel again
        if (this.#known.size >= this.#max) this.#known.delete(this.#known.keys().next().value!);
        this.#known.set(key, { uid: owner.uid, fd, link });
      }
    }
    return owner;
  }
}

/** The listening socket on a port, if any (its owner uid and inode). */
export function listenerOn(port: number, proc: ProcSource = LINUX_PROC): SocketRow | null {
  return socketTable(proc)?.find((r) => r.state === TCP_LISTEN && r.local.port === port) ?? null;
}

/**
 * The pids holding a socket inode, by its `socket:[inode]` link in /proc/<pid>/fd. Only processes this user may
 * read are seen (every one, for root).
 */
export function pidsHolding(inode: number, proc: ProcSource = LINUX_PROC): number[] {
  const want = `socket:[${inode}]`;
  const out: number[] = [];
  for (const pid of proc.listPids()) {
    const fds = proc.listDir?.(`/proc/${pid}/fd`) ?? [];
    if (fds.some((fd) => proc.readLink(`/proc/${pid}/fd/${fd}`) === want)) out.push(pid);
  }
  return out;
}
