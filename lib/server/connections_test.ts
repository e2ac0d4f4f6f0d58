import assert from "node:assert/strict";
import type { PeerOwner } from "../procs/mod.ts";
import type { LogLine } from "../lang/mod.ts";
import {
  connectionCaps,
  judgePeer,
  listenConnections,
  type ListenOptions,
  openFileLimit,
  type PeerFacts,
} from "./connections.ts";
import { ServerFaults } from "./faults.ts";

const ME = 1000;

function facts(extra: Partial<PeerFacts> = {}): PeerFacts {
  return {
    serverUid: ME,
    allowedUids: [],
    caps: { total: 10, perUid: 7 },
    open: { total: 0, ofUid: 0 },
    refusing: 0,
    ...extra,
  };
}

const JUDGED: [string, PeerOwner, Partial<PeerFacts>, string][] = [
  ["the server's own user is served", { uid: ME }, {}, "serve"],
  ["a platform that cannot name users is served (each request then needs the key)", "unknown", {}, "serve"],
  ["another user is refused with a sentence", { uid: 65534 }, {}, "refuse"],
  ["a connection the kernel does not show is refused", "not found", {}, "refuse"],
  ["a user in allowed_uids is served", { uid: 2000 }, { allowedUids: [2000] }, "serve"],
  ["another user with 32 refusals being answered is dropped", { uid: 65534 }, { refusing: 32 }, "drop"],
  ["the owner at the total cap is dropped", { uid: ME }, { open: { total: 10, ofUid: 3 } }, "drop"],
  ["the owner at the per-user cap is dropped", { uid: ME }, { open: { total: 7, ofUid: 7 } }, "drop"],
  ["the owner below both caps is served", { uid: ME }, { open: { total: 9, ofUid: 6 } }, "serve"],
];
for (const [name, owner, extra, kind] of JUDGED) {
  Deno.test(`a new connection: ${name}`, () => {
    const verdict = judgePeer(owner, facts(extra));
    assert.equal(verdict.kind, kind);
    if (verdict.kind === "refuse" && typeof owner === "object") {
      assert.match(verdict.message, new RegExp(`uid ${owner.uid}`), "the refusal names the uid");
    }
  });
}

Deno.test("the caps keep connections to half the file limit, within 32 and 4096, a user to three quarters", () => {
  assert.deepEqual(connectionCaps(1024), { total: 512, perUid: 384 });
  assert.deepEqual(connectionCaps(40), { total: 32, perUid: 24 });
  assert.deepEqual(connectionCaps(1_048_576), { total: 4096, perUid: 3072 });
  assert.deepEqual(connectionCaps(null), { total: 512, perUid: 384 });
  const limits = "Limit                     Soft Limit           Hard Limit           Units     \n" +
    "Max open files            1024                 524288               files     \n";
  assert.equal(openFileLimit(limits), 1024);
  assert.equal(openFileLimit(limits.replace("1024 ", "unlimited ")), null);
  assert.equal(openFileLimit(null), null);
  // this process's own, from the kernel
  assert.ok((openFileLimit(Deno.readTextFileSync("/proc/self/limits")) ?? 0) > 0);
});

/** A listener with a handler that answers "hello <path>", and what it logged. */
function listen(extra: Partial<ListenOptions> = {}) {
  const lines: LogLine[] = [];
  let handled = 0;
  const server = listenConnections({
    hostname: "127.0.0.1",
    port: 0,
    handler: (req) => (handled++, Promise.resolve(new Response(`hello ${new URL(req.url).pathname}`))),
    ownersOf: (peers) => peers.map(() => ({ uid: ME })),
    serverUid: ME,
    allowedUids: [],
    caps: () => ({ total: 64, perUid: 48 }),
    log: (line) => lines.push(line),
    faults: new ServerFaults(),
    headerTimeoutMs: 300,
    idleTimeoutMs: 600,
    ...extra,
  });
  return { server, lines, handled: () => handled };
}

/** Reads from `conn` until it is closed by the other end or `ms` pass; the text, and whether it was closed. */
async function readUntilClosed(conn: Deno.Conn, ms: number): Promise<{ text: string; closed: boolean }> {
  const buf = new Uint8Array(4096);
  let text = "";
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      conn.read(buf).catch(() => null),
      new Promise<"wait">((r) => (timer = setTimeout(() => r("wait"), Math.max(0, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
    if (n === "wait") return { text, closed: false };
    if (n === null) return { text, closed: true };
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
}

const REQUEST = (port: number, path = "/") =>
  new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);

Deno.test("a connection that sends no request head, or half of one, is closed after the header timeout", async () => {
  const { server } = listen();
  const silent = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const slow = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    await slow.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    const [a, b] = await Promise.all([readUntilClosed(silent, 3000), readUntilClosed(slow, 3000)]);
    assert.deepEqual(a, { text: "", closed: true }, "the silent connection was closed by the server");
    assert.equal(b.closed, true, "the half-sent head's connection was closed by the server");
    assert.equal(server.counts().timed_out, 2);
    assert.equal(server.counts().open, 0);
  } finally {
    silent.close();
    slow.close();
    await server.close(1000);
  }
});

Deno.test("a kept-alive connection is served request after request, and closed once idle past its timeout", async () => {
  const { server } = listen();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    for (const path of ["/one", "/two"]) {
      await conn.write(REQUEST(server.port, path));
      const buf = new Uint8Array(4096);
      const n = await conn.read(buf);
      assert.match(
        new TextDecoder().decode(buf.subarray(0, n ?? 0)),
        new RegExp(`^HTTP/1.1 200.*hello ${path}`, "s"),
      );
    }
    assert.equal(server.counts().open, 1);
    const after = await readUntilClosed(conn, 3000);
    assert.equal(after.closed, true, "idle past its timeout, the connection was closed");
    assert.equal(server.counts().timed_out, 0, "an idle kept-alive connection is not a header timeout");
  } finally {
    conn.close();
    await server.close(1000);
  }
});

Deno.test("another user's connection is answered one 403 sentence without its request being handled, and logged once", async () => {
  const { server, lines, handled } = listen({ ownersOf: (peers) => peers.map(() => ({ uid: 65534 })) });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/secret`, {
        headers: { connection: "close" },
      });
      assert.equal(res.status, 403);
      assert.match((await res.json()).error, /this connection came from uid 65534/);
    }
    // a client that sends nothing at all still gets the answer, then the close
    const silent = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    const { text, closed } = await readUntilClosed(silent, 3000);
    silent.close();
    assert.match(text, /^HTTP\/1.1 403 Forbidden/);
    assert.equal(closed, true);
    assert.equal(handled(), 0, "no request of another user reached the handler");
    assert.equal(server.counts().refused, 4);
    assert.equal(lines.filter((l) => l.what === "refused").length, 1, "one line for the uid");
  } finally {
    await server.close(1000);
  }
});

Deno.test("connections over the cap are closed at once, and served again once one closes", async () => {
  const { server, lines } = listen({ caps: () => ({ total: 3, perUid: 3 }) });
  const held: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      await conn.write(REQUEST(server.port));
      await conn.read(new Uint8Array(4096));
      held.push(conn);
    }
    const over = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    await over.write(REQUEST(server.port)).catch(() => 0);
    const { text, closed } = await readUntilClosed(over, 2000);
    over.close();
    assert.equal(closed, true, "the fourth connection was closed");
    assert.equal(text, "", "without an answer");
    assert.equal(server.counts().dropped, 1);
    assert.equal(lines.filter((l) => l.what === "connection dropped").length, 1);
    held.shift()!.close();
    await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(`http://127.0.0.1:${server.port}/again`);
    assert.equal(await res.text(), "hello /again", "a place freed is served");
  } finally {
    for (const c of held) c.close();
    await server.close(1000);
  }
});

Deno.test("closing waits for a response being sent, and closes idle connections at once", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { server } = listen({
    handler: async () => {
      await gate;
      return new Response("finished");
    },
    idleTimeoutMs: 60_000,
  });
  const busy = fetch(`http://127.0.0.1:${server.port}/slow`).then((r) => r.text());
  await new Promise((r) => setTimeout(r, 100));
  const closing = server.close(5000);
  setTimeout(release, 200);
  await closing;
  assert.equal(await busy, "finished", "the answer in progress was sent before the close ended");
  await assert.rejects(
    () => Deno.connect({ hostname: "127.0.0.1", port: server.port }),
    "nothing listens after the close",
  );
});

Deno.test("connections reset by their client before they are accepted cost nothing: the next is accepted at once", async () => {
  const { server } = listen();
  try {
    // a client that connects and resets at once (SO_LINGER 0): the accept of each may fail with ECONNABORTED
    const python = `
import socket, struct, sys
port = int(sys.argv[1])
for i in range(100):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.connect(("127.0.0.1", port))
    s.close()
`;
    const out = await new Deno.Command("python3", { args: ["-c", python, String(server.port)] }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${server.port}/after`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(await res.text(), "hello /after");
    const waited = performance.now() - started;
    console.log(
      `after 100 reset connections (${server.counts().aborted} failed their accept): answered in ${
        Math.round(waited)
      } ms`,
    );
    assert.equal(server.counts().open <= 1, true);
  } finally {
    await server.close(1000);
  }
});

Deno.test("an answer its client does not read is given up, its connection closed; a stream goes on", async () => {
  const big = new TextEncoder().encode("x".repeat(16 << 20));
  const stream = (type: string) =>
    new Response(new ReadableStream({ pull: (c) => c.enqueue(big) }), { headers: { "content-type": type } });
  const { server } = listen({
    handler: (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/stream") return Promise.resolve(stream("application/x-ndjson"));
      if (path === "/piped") return Promise.resolve(stream("text/plain"));
      return Promise.resolve(new Response(big));
    },
    sendTimeoutMs: 500,
    idleTimeoutMs: 800,
  });
  const conns: Deno.Conn[] = [];
  try {
    for (const path of ["/whole", "/piped", "/stream"]) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      await conn.write(REQUEST(server.port, path));
      conns.push(conn); // never read
    }
    await new Promise((r) => setTimeout(r, 2000));
    // a piped answer that stopped moving: given up at the send timeout; a whole one (the engine holds it until
    // it is written): the wait for the next request never comes, and the idle timeout ends it
    assert.equal(server.counts().stalled, 1, "the piped answer was given up");
    assert.equal(server.counts().open, 1, "only the stream, a stream, goes on");
  } finally {
    for (const c of conns) c.close();
    await server.close(1000);
  }
});
