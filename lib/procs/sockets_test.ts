import assert from "node:assert/strict";
import { LINUX_PROC, type ProcSource } from "./proc_table.ts";
import {
  listenerOn,
  parseSocketTable,
  type PeerOwner,
  peerOwner,
  peerOwners,
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

Deno.test("the owners of many connections come from one read of each table, and nothing read before is reused", () => {
  const reads: string[] = [];
  const files: Record<string, string> = { "/proc/net/tcp": TCP, "/proc/net/tcp6": TCP6 };
  const proc: ProcSource = { ...fakeProc({}), readText: (p) => (reads.push(p), files[p] ?? null) };
  const peers = [
    { hostname: "127.0.0.1", port: 40000 },
    { hostname: "::ffff:127.0.0.1", port: 40001 },
    { hostname: "127.0.0.1", port: 40002 },
  ];
  assert.deepEqual(peerOwners(peers, 7777, proc), [{ uid: 65534 }, { uid: 1001 }, "not found"]);
  assert.deepEqual(reads, ["/proc/net/tcp", "/proc/net/tcp6"], "one read of each table for the three");
  // all answered by the first table: the second is not read
  reads.length = 0;
  assert.deepEqual(peerOwners([peers[0]], 7777, proc), [{ uid: 65534 }]);
  assert.deepEqual(reads, ["/proc/net/tcp"]);
  // a client end its process already closed (an orphan in FIN_WAIT2, inode 0) shows uid 0: it names nobody
  files["/proc/net/tcp"] = TCP +
    "   3: 0100007F:9C43 0100007F:1E61 05 00000000:00000000 00:00000000 00000000     0        0 0 1 0 20 4 30 10 -1\n";
  assert.deepEqual(peerOwners([{ hostname: "127.0.0.1", port: 40003 }], 7777, proc), ["not found"]);
  files["/proc/net/tcp"] = TCP;
  // the same port a moment later, now another user's: read again, answered anew
  files["/proc/net/tcp"] = TCP.replace(" 65534 ", "  4242 ");
  assert.deepEqual(peerOwners([peers[0]], 7777, proc), [{ uid: 4242 }]);
});

Deno.test("on the real kernel, three accepted connections are named with one read of the table", async () => {
  let tableReads = 0;
  const counting: ProcSource = {
    ...LINUX_PROC,
    readText: (p) => {
      if (p.startsWith("/proc/net/tcp")) tableReads++;
      return LINUX_PROC.readText(p);
    },
  };
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const clients: Deno.Conn[] = [];
  const accepted: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      clients.push(await Deno.connect({ hostname: "127.0.0.1", port }));
      accepted.push(await listener.accept());
    }
    const owners: PeerOwner[] = peerOwners(accepted.map((c) => c.remoteAddr as Deno.NetAddr), port, counting);
    assert.deepEqual(owners, Array(3).fill({ uid: Deno.uid() }));
    assert.equal(tableReads, 1, "tcp answered all three; tcp6 was not read");
  } finally {
    for (const c of [...clients, ...accepted]) c.close();
    listener.close();
  }
});
