/**
 * A request never costs more than its bound: a transcript of any size is read as its tail, a `transcript_path`
 * that is a FIFO or a device is refused without a read, the server answers other requests while those reads are
 * out, only a few heavy requests run at once, and a body over its route's limit is a 413 without being read on.
 * Asserted through the server's file seam and its log, never by timing.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { MAX_HEAVY, type RunningServer, startServer } from "../../lib/server/mod.ts";
import { type FileReader, NODE_FILES } from "../../lib/files/mod.ts";
import { ACTION_BODY_BYTES } from "./actions.ts";
import { ROUTES } from "../mod.ts";

/** A file seam that counts every byte read, and can hold every read until released. */
function heldReader() {
  let read = 0;
  let inRead = 0;
  let release: (() => void) | null = null;
  let gate: Promise<void> | null = null;
  const reader: FileReader = {
    async open(path, options) {
      const file = await NODE_FILES.open(path, options);
      return {
        size: file.size,
        async read(into, position) {
          inRead++;
          if (gate) await gate;
          const n = await file.read(into, position);
          read += n;
          inRead--;
          return n;
        },
        close: file.close,
      };
    },
  };
  return {
    reader,
    read: () => read,
    inRead: () => inRead,
    hold() {
      gate = new Promise((r) => (release = r));
    },
    release() {
      gate = null;
      release?.();
    },
  };
}

async function withServer(
  fn: (server: RunningServer, home: string, seam: ReturnType<typeof heldReader>) => Promise<void>,
): Promise<void> {
  const home = Deno.makeTempDirSync({ prefix: "asm-bounded-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const seam = heldReader();
  const server = startServer({
    asmHome: home,
    port: 0,
    services: [],
    env,
    files: seam.reader,
    routes: ROUTES,
  });
  try {
    await fn(server, home, seam);
  } finally {
    seam.release();
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
}

async function until(probe: () => boolean, why: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting: ${why}`);
}

/** Claude Code's transcript folder under the test's HOME (where a session's transcript may be read from). */
function claudeStore(home: string): string {
  const store = join(home, ".claude", "projects", "-p");
  Deno.mkdirSync(store, { recursive: true });
  return store;
}

function sessionAt(server: RunningServer, id: string, transcriptPath: string): string {
  const e = hookEvent({ agent_session_id: id, transcript_path: transcriptPath });
  server.ledger.applyEvent(e);
  return e.asm_id;
}

Deno.test("a 500 MB transcript is read as its 16 MiB tail; a FIFO and /dev/zero are refused unread", async () => {
  await withServer(async (server, home, seam) => {
    const store = claudeStore(home);
    const big = join(store, "big.jsonl");
    Deno.writeTextFileSync(big, "");
    Deno.truncateSync(big, 500_000_000); // sparse: 500 MB of file, no disk
    const fifo = join(store, "fifo.jsonl");
    assert.ok(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().success, "mkfifo made the FIFO");
    const bigId = sessionAt(server, "big", big);
    const fifoId = sessionAt(server, "fifo", fifo);
    const zeroId = sessionAt(server, "zero", "/dev/zero");

    const page = await fetch(`${server.url}/sessions/${bigId}`);
    assert.equal(page.status, 200);
    await page.body?.cancel();
    assert.ok(seam.read() <= 16 * 1024 * 1024 + 1, `the page read ${seam.read()} bytes of a 500 MB file`);
    assert.ok(seam.read() >= 16 * 1024 * 1024, "it read the tail it shows");

    for (
      const [id, what] of [[fifoId, /is a FIFO, not a regular file/], [
        zeroId,
        /is a character device/,
      ]] as const
    ) {
      const before = seam.read();
      const detail = await (await server.api(`/api/sessions/${id}`)).json();
      assert.match(detail.note, what);
      assert.deepEqual(detail.entries, []);
      assert.equal(seam.read(), before, "not one byte read");
      const html = await (await fetch(`${server.url}/sessions/${id}`)).text();
      assert.match(html, what);
    }
  });
});

Deno.test("a transcript path through a linked folder, or outside its agent's folders, is refused unread", async () => {
  await withServer(async (server, home, seam) => {
    // a secret in the transcript format, where no agent keeps transcripts
    const elsewhere = join(home, "elsewhere");
    Deno.mkdirSync(elsewhere);
    const secretLine = JSON.stringify({
      type: "user",
      promptSource: "typed",
      message: { role: "user", content: "SECRET_CONTENT_Q7" },
      timestamp: "2026-11-30T10:00:00.000Z",
      sessionId: "x",
    });
    Deno.writeTextFileSync(join(elsewhere, "s.jsonl"), secretLine + "\n");
    const store = claudeStore(home);
    Deno.symlinkSync(elsewhere, join(store, "linked"));
    const viaLink = sessionAt(server, "via-link", join(store, "linked", "s.jsonl"));
    const outside = sessionAt(server, "outside", join(elsewhere, "s.jsonl"));
    for (const id of [viaLink, outside]) {
      const before = seam.read();
      const detail = await (await server.api(`/api/sessions/${id}`)).json();
      assert.match(detail.note, /leads outside the folders it belongs in/);
      assert.deepEqual(detail.entries, []);
      assert.equal(seam.read(), before, "not one byte read");
      const html = await (await fetch(`${server.url}/sessions/${id}`)).text();
      assert.doesNotMatch(html, /SECRET_CONTENT_Q7/);
    }
    const found = await (await server.api("/api/search?q=SECRET_CONTENT&deep=1&all=1")).json();
    assert.equal(found.matches, 0, "search does not read it either");
  });
});

Deno.test("the server answers while transcript reads are out, and a fifth heavy request is told to wait", async () => {
  await withServer(async (server, home, seam) => {
    const path = join(claudeStore(home), "t.jsonl");
    Deno.writeTextFileSync(path, '{"type":"user"}\n'.repeat(1000));
    const id = sessionAt(server, "held", path);
    seam.hold();
    const pages = Array.from({ length: MAX_HEAVY }, () => fetch(`${server.url}/sessions/${id}`));
    await until(() => seam.inRead() === MAX_HEAVY, `${MAX_HEAVY} reads held in the seam`);
    const health = await server.api("/api/health");
    assert.equal(health.status, 200, "health answers while the reads are out");
    assert.equal((await health.json()).ok, true);
    const busy = await fetch(`${server.url}/sessions/${id}`);
    assert.equal(busy.status, 503);
    assert.equal(busy.headers.get("retry-after"), "1");
    assert.match((await busy.json()).error, /busy/);
    seam.release();
    for (const res of await Promise.all(pages)) {
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const after = await fetch(`${server.url}/sessions/${id}`);
    assert.equal(after.status, 200, "the slots are free again");
    await after.body?.cancel();
  });
});

function logLines(home: string): Record<string, unknown>[] {
  return Deno.readTextFileSync(join(home, "server.log")).split("\n").filter(Boolean).map((l) =>
    JSON.parse(l)
  );
}

Deno.test("a 100 MB body gets 413 and the server reads no more than its limit of it", async () => {
  await withServer(async (server, home) => {
    // declared: refused on its Content-Length, nothing read
    const declared = await server.api("/api/launch", { method: "POST", body: new Uint8Array(100_000_000) });
    assert.equal(declared.status, 413);
    assert.match((await declared.json()).error, /at most 1048576 bytes/);
    // streamed (no length given): read until the limit is passed, then cut
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 100) return controller.close();
        pulled++;
        controller.enqueue(new Uint8Array(1_000_000));
      },
    });
    const streamed = await server.api(
      "/api/launch",
      { method: "POST", body: stream, duplex: "half" } as RequestInit,
    );
    assert.equal(streamed.status, 413);
    await streamed.body?.cancel();
    const refused = logLines(home).filter((l) => l.what === "request body refused");
    assert.equal(refused.length, 2);
    assert.equal(refused[0].read, 0, "a declared oversize body is not read at all");
    assert.ok(
      (refused[1].read as number) <= ACTION_BODY_BYTES + 1_000_000,
      `read ${refused[1].read} bytes of a 100 MB stream`,
    );
    // a small body still works (and is refused for what it says, not for its size)
    const small = await server.api("/api/launch", {
      method: "POST",
      body: JSON.stringify({ agent: "nobody" }),
    });
    assert.notEqual(small.status, 413);
    await small.body?.cancel();
  });
});

Deno.test("a transcript path that is a socket, or a name too long, is a sentence on the page, in the API and in the stream, never a 500", async () => {
  await withServer(async (server, home) => {
    const store = claudeStore(home);
    const socketPath = join(store, "s.jsonl");
    const listener = Deno.listen({ transport: "unix", path: socketPath });
    try {
      const ids = [
        sessionAt(server, "socket", socketPath),
        sessionAt(server, "long", join(store, "x".repeat(300))),
      ];
      for (const id of ids) {
        const detail = await server.api(`/api/sessions/${id}`);
        assert.equal(detail.status, 200);
        assert.match(
          (await detail.json()).note,
          /asm did not read it: .*(could not be read|not a regular file|socket)/,
        );
        const page = await fetch(`${server.url}/sessions/${id}`);
        assert.equal(page.status, 200);
        await page.body?.cancel();
        const stream = await server.api(`/api/sessions/${id}/stream`);
        assert.equal(stream.status, 200);
        await stream.body?.cancel();
      }
    } finally {
      listener.close();
    }
  });
});
