import assert from "node:assert/strict";
import { LINUX_PROC, type ProcSource } from "./proc_table.ts";
import {
  listenerOn,
  parseSocketTable,
  type PeerOwner,
  peerOwner,
  PeerOwners,
  pidsHolding,
  socketTable,
  TCP_LISTEN,
} from "./sockets.ts";

// rows as the kernel prints them: a listener on 127.0.0.1:7777 (uid 1000), a client 127.0.0.1:40000 -> 7777
// (uid 65534) and the server's end of it (uid 1000)
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1E61 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4001 1 0 100 0 0 10 0
   1: 0100007F:9C40 0100007F:1E61 01 00000000:00000000 00:00000000 00000000 65534        0 4002 1 0 20 4 30 10 -1
   2: 0100007F:1E61 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 4003 1 0 20 4 30 10 -1
`;
// a dual-stack client: ::ffff:127.0.0.1 port 40001 -> 127.0.0.1:7777, uid 1001
const TCP6 =
  `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0000000000000000FFFF00000100007F:9C41 0000000000000000FFFF00000100007F:1E61 01 00000000:00000000 00:00000000 00000000  1001        0 4004 1 0 20 4 30 10 -1
   1: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4005 1 0 100 0 0 10 0
`;

function fakeProc(files: Record<string, string>, fds: Record<string, string> = {}): ProcSource {
  return {
    readText: (p) => files[p] ?? null,
    readLink: (p) => fds[p] ?? null,
    listPids: () => [...new Set(Object.keys(fds).map((p) => Number(p.split("/")[2])))],
    listDir: (dir) =>
      Object.keys(fds).filter((p) => p.startsWith(dir + "/")).map((p) => p.slice(dir.length + 1)),
  };
}

Deno.test("the kernel's socket table parses to addresses, ports, states, owners and inodes", () => {
  const rows = parseSocketTable(TCP + TCP6);
  assert.equal(rows.length, 5);
  assert.deepEqual(rows[1], {
    local: { address: "127.0.0.1", port: 40000 },
    remote: { address: "127.0.0.1", port: 7777 },
    state: 1,
    uid: 65534,
    inode: 4002,
  });
  assert.equal(rows[0].state, TCP_LISTEN);
  // an IPv4-mapped IPv6 end reads as its IPv4 address; ::1 as eight groups
  assert.equal(rows[3].local.address, "127.0.0.1");
  assert.equal(rows[4].local.address, "0:0:0:0:0:0:0:1");
});

Deno.test("the peer's owner is the uid of the client end, never of the server's own end", () => {
  const proc = fakeProc({ "/proc/net/tcp": TCP, "/proc/net/tcp6": TCP6 });
  assert.deepEqual(peerOwner({ hostname: "127.0.0.1", port: 40000 }, 7777, proc), { uid: 65534 });
  assert.deepEqual(peerOwner({ hostname: "::ffff:127.0.0.1", port: 40001 }, 7777, proc), { uid: 1001 });
  assert.deepEqual(peerOwner({ hostname: "127.0.0.1", port: 40001 }, 7777, proc), { uid: 1001 });
  // a TIME_WAIT row (state 06, shown as uid 0) of an earlier connection on the same ports never answers
  const waiting = TCP.replace("   1: 0100007F:9C40 0100007F:1E61 01", "   1: 0100007F:9C40 0100007F:1E61 06")
    .replace("65534        0 4002", "    0        0 4002");
  assert.equal(
    peerOwner({ hostname: "127.0.0.1", port: 40000 }, 7777, fakeProc({ "/proc/net/tcp": waiting })),
    "not found",
  );
  // a client port connected to another server port is not this connection
  assert.equal(peerOwner({ hostname: "127.0.0.1", port: 40000 }, 8080, proc), "not found");
  assert.equal(peerOwner({ hostname: "127.0.0.1", port: 7777 }, 7777, proc), "not found");
});

Deno.test("the IPv6 table is read only when the IPv4 one holds no answer", () => {
  const reads: string[] = [];
  const files: Record<string, string> = { "/proc/net/tcp": TCP, "/proc/net/tcp6": TCP6 };
  const proc: ProcSource = { ...fakeProc(files), readText: (p) => (reads.push(p), files[p] ?? null) };
  assert.deepEqual(peerOwner({ hostname: "127.0.0.1", port: 40000 }, 7777, proc), { uid: 65534 });
  assert.deepEqual(reads, ["/proc/net/tcp"]);
  reads.length = 0;
  // the dual-stack client's end is only in tcp6
  assert.deepEqual(peerOwner({ hostname: "127.0.0.1", port: 40001 }, 7777, proc), { uid: 1001 });
  assert.deepEqual(reads, ["/proc/net/tcp", "/proc/net/tcp6"]);
  // a kernel with IPv6 only still answers
  assert.deepEqual(
    peerOwner({ hostname: "127.0.0.1", port: 40001 }, 7777, fakeProc({ "/proc/net/tcp6": TCP6 })),
    { uid: 1001 },
  );
});

Deno.test("a platform without the tables says unknown, not a uid", () => {
  assert.equal(socketTable(fakeProc({})), null);
  assert.equal(peerOwner({ hostname: "127.0.0.1", port: 1 }, 2, fakeProc({})), "unknown");
});

Deno.test("the listener of a port and the pids holding its inode", () => {
  const proc = fakeProc({ "/proc/net/tcp": TCP }, {
    "/proc/41/fd/3": "socket:[4001]",
    "/proc/41/fd/0": "/dev/null",
    "/proc/42/fd/5": "socket:[4003]",
  });
  const listener = listenerOn(7777, proc);
  assert.equal(listener?.uid, 1000);
  assert.equal(listener?.inode, 4001);
  assert.deepEqual(pidsHolding(4001, proc), [41]);
  assert.equal(listenerOn(7778, proc), null);
});

Deno.test("on the real kernel, a loopback client's end is owned by this process's uid and held by this pid", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const client = await Deno.connect({ hostname: "127.0.0.1", port });
  const accepted = await listener.accept();
  try {
    const peer = accepted.remoteAddr as Deno.NetAddr;
    assert.deepEqual(peerOwner({ hostname: peer.hostname, port: peer.port }, port), { uid: Deno.uid() });
    const row = listenerOn(port);
    assert.equal(row?.uid, Deno.uid());
    assert.ok(pidsHolding(row!.inode).includes(Deno.pid), "this process holds the listening socket");
  } finally {
    client.close();
    accepted.close();
    listener.close();
  }
});

Deno.test("a connection's owner is asked of the kernel once, and asked again when its server socket is not the same", () => {
  // the server's own end of the 40000 connection is inode 4003, held by this process as fd 7
  const fds: Record<string, string> = { "/proc/self/fd/7": "socket:[4003]", "/proc/self/fd/3": "/dev/null" };
  let tableReads = 0;
  const proc: ProcSource = {
    readText: (p) => (p === "/proc/net/tcp" ? (tableReads++, TCP) : null),
    readLink: (p) => fds[p] ?? null,
    listPids: () => [],
    listDir: (dir) =>
      Object.keys(fds).filter((p) => p.startsWith(dir + "/")).map((p) => p.slice(dir.length + 1)),
  };
  const owners = new PeerOwners({ proc });
  const peer = { hostname: "127.0.0.1", port: 40000 };
  assert.deepEqual(owners.ownerOf(peer, 7777), { uid: 65534 });
  assert.deepEqual(owners.ownerOf(peer, 7777), { uid: 65534 });
  assert.equal(tableReads, 1, "the second request of the same connection does not read the table");
  // the connection closed and fd 7 now names another socket: the kernel is asked again
  fds["/proc/self/fd/7"] = "socket:[9999]";
  assert.deepEqual(owners.ownerOf(peer, 7777), { uid: 65534 });
  assert.equal(tableReads, 2);
  // a connection whose server end this process does not hold is never remembered
  delete fds["/proc/self/fd/7"];
  owners.ownerOf(peer, 7777);
  owners.ownerOf(peer, 7777);
  assert.equal(tableReads, 4);
});

Deno.test("on the real kernel, a keep-alive connection's owner is read once, and a new connection is read again", async () => {
  let tableReads = 0;
  const counting: ProcSource = {
    ...LINUX_PROC,
    readText: (p) => {
      if (p.startsWith("/proc/net/tcp")) tableReads++;
      return LINUX_PROC.readText(p);
    },
  };
  const owners = new PeerOwners({ proc: counting });
  const seen: PeerOwner[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (_req, info) => {
    seen.push(owners.ownerOf(info.remoteAddr, server.addr.port));
    return new Response("ok");
  });
  try {
    const client = Deno.createHttpClient({});
    for (let i = 0; i < 5; i++) {
      await (await fetch(`http://127.0.0.1:${server.addr.port}/`, { client })).text();
    }
    assert.equal(tableReads, 1, "five requests on one connection: one table read");
    client.close();
    const other = Deno.createHttpClient({});
    await (await fetch(`http://127.0.0.1:${server.addr.port}/`, { client: other })).text();
    other.close();
    assert.equal(tableReads, 2, "a new connection is asked of the kernel");
    assert.deepEqual(seen.map((o) => JSON.stringify(o)), Array(6).fill(JSON.stringify({ uid: Deno.uid() })));
  } finally {
    await server.shutdown();
  }
});
