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
 * The uid owning the client end of a loopback connection to `serverPort`: the live row whose local end is the
 * peer's address and port and whose remote end is the server's port. Read fresh on every call.
 */
export function peerOwner(
  peer: { hostname: string; port: number },
  serverPort: number,
  proc: ProcSource = LINUX_PROC,
): PeerOwner {
  return peerOwners([peer], serverPort, proc)[0];
}

/**
 * {@link peerOwner} for many connections with one read of the tables: the server asks it for every connection
 * accepted since its last read. A connection accepted before the read began is in it (its handshake is done),
 * so nothing read earlier is ever reused: ports are reused, on loopback even from TIME_WAIT, and an owner
 * remembered by port could answer for another user's connection.
 */
export function peerOwners(
  peers: readonly { hostname: string; port: number }[],
  serverPort: number,
  proc: ProcSource = LINUX_PROC,
): PeerOwner[] {
  const owners: (PeerOwner | null)[] = peers.map(() => null);
  let read = false;
  // tcp6 only when tcp leaves some unanswered: each read walks the kernel's whole connection hash (about 5 ms
  // here), and a connection's client end is one socket, in one of the two tables
  for (const path of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (owners.every((o) => o !== null)) break;
    const text = proc.readText(path);
    if (text === null) continue;
    read = true;
    const clients = new Map<number, SocketRow[]>();
    for (const row of parseSocketTable(text)) {
      // only a connection's live row (established, or half-closed by a client that sent its request and shut
      // its side): a TIME_WAIT row of an earlier connection on the same ports is owned by no one (the kernel
      // shows uid 0) and must never answer for the one being served
      // and never a row of inode 0: a socket its process already closed, kept by the kernel until its peer
      // answers (an orphan in FIN_WAIT2 shows uid 0, root, whoever opened it)
      if (!CLIENT_STATES.has(row.state) || row.remote.port !== serverPort || row.inode === 0) continue;
      const rows = clients.get(row.local.port) ?? [];
      rows.push(row);
      clients.set(row.local.port, rows);
    }
    peers.forEach((peer, i) => {
      if (owners[i] !== null) return;
      const row = clients.get(peer.port)?.find((r) => sameAddress(peer.hostname, r.local.address));
      if (row) owners[i] = { uid: row.uid };
    });
  }
  return owners.map((o) => o ?? (read ? "not found" : "unknown"));
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
