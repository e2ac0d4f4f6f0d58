/**
 * The health model's shell, end to end with a real server: a drain failing every pass, a ledger deleted while
 * serving (writes stop, an event that arrives afterwards waits in the inbox for the restart), a ledger made
 * read-only (writes held, taken up again without a restart when the mode is fixed). CI runs as root, which
 * ignores file modes: there the file is made immutable (`chattr +i`), which binds root too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../ledger/_test_utils.ts";
import { type HookEvent, Ledger, LedgerError, LedgerUnwritableError, openReadOnly } from "../ledger/mod.ts";
import { type RunningServer, startServer } from "./app.ts";
import { SERVICES } from "./services.ts";
import { ROUTES } from "../../routes/mod.ts";
import { waitFor } from "./_test_utils.ts";

const WATCH = SERVICES.filter((s) => s.name === "ledger");

type Health = { ok: boolean; problems: string[]; parts: Record<string, Record<string, unknown>> };

async function health(server: RunningServer): Promise<Health> {
  return await (await server.api("/api/health")).json();
}

function drop(home: string, event: HookEvent): string {
  const path = join(home, "inbox", `${event.event_id}.json`);
  Deno.writeTextFileSync(path, JSON.stringify(event));
  return path;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function logLines(home: string, what: string): Record<string, unknown>[] {
  return Deno.readTextFileSync(join(home, "server.log")).trim().split("\n").map((l) => JSON.parse(l))
    .filter((l) => l.what === what);
}

/** Makes the file read-only for this process: root ignores modes, so for root it is made immutable. */
function makeReadOnly(path: string): () => void {
  if (Deno.uid() !== 0) {
    Deno.chmodSync(path, 0o444);
    return () => Deno.chmodSync(path, 0o600);
  }
  const set = new Deno.Command("chattr", { args: ["+i", path] }).outputSync();
  assert.equal(
    set.code,
    0,
    `chattr +i failed (this test needs it as root): ${new TextDecoder().decode(set.stderr)}`,
  );
  return () => {
    new Deno.Command("chattr", { args: ["-i", path] }).outputSync();
  };
}

Deno.test("a drain that fails every pass makes health not ok with the drain's sentence, and ok again once fixed", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-health-" });
  const server = startServer({ asmHome: home, port: 0, drainEveryMs: 100, services: [], routes: ROUTES });
  try {
    assert.equal((await health(server)).ok, true);
    // the inbox is a file: the drain cannot list it, every pass
    Deno.removeSync(join(home, "inbox"), { recursive: true });
    Deno.writeTextFileSync(join(home, "inbox"), "not a folder");
    const sick = await waitFor("health to say the drain fails", async () => {
      const h = await health(server);
      return h.ok ? null : h;
    });
    assert.equal(sick.problems.length, 1, sick.problems.join("\n"));
    assert.match(sick.problems[0], /^Hook events: the drain cannot list .*inbox/);
    assert.equal(sick.parts.drain.ok, false);
    Deno.removeSync(join(home, "inbox"));
    Deno.mkdirSync(join(home, "inbox"), { mode: 0o700 });
    await waitFor("health to be ok again", async () => (await health(server)).ok);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("event files the server's drain could not move to processed/ go there once the folder is back: health turns ok by itself, no restart", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-health-" });
  const server = startServer({ asmHome: home, port: 0, drainEveryMs: 100, services: [], routes: ROUTES });
  try {
    // a file where processed/ goes: no date folder can be made in it
    Deno.removeSync(join(home, "processed"), { recursive: true });
    Deno.writeTextFileSync(join(home, "processed"), "not a folder");
    const events = [1, 2, 3].map((i) => hookEvent({ agent_session_id: `stuck-${i}` }));
    const paths = events.map((e) => drop(home, e));
    const sick = await waitFor("health to say the files are skipped", async () => {
      const h = await health(server);
      return h.problems.some((p) => p.includes("3 name(s)")) ? h : null;
    });
    assert.equal(sick.ok, false);
    assert.match(
      sick.problems[0],
      /^Hook events: 3 name\(s\) in the inbox are skipped .*could not be moved to processed\/: Not a directory/,
    );
    for (const e of events) assert.equal(server.ledger.hasEvent(e.event_id), true);
    // passes go by with the cause still there: tried again, said nothing
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(logLines(home, "drain skips file").length, 3);
    assert.equal(paths.every(exists), true);

    Deno.removeSync(join(home, "processed"));
    await waitFor("health to be ok again", async () => (await health(server)).ok);
    assert.equal(paths.some(exists), false);
    const day = join(home, "processed", new Date().toISOString().slice(0, 10));
    assert.deepEqual(
      [...Deno.readDirSync(day)].map((e) => e.name).sort(),
      events.map((e) => `${e.event_id}.json`).sort(),
    );
    assert.equal(server.ledger.counts().events, 3, "each event once");
    const took = logLines(home, "drain took skipped file");
    assert.deepEqual(took.map((l) => l.file).sort(), events.map((e) => `${e.event_id}.json`).sort());
    assert.equal(logLines(home, "drain skips file").length, 3, "each skip said once");
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a ledger deleted while serving: writes stop, health and one log line say so, and a later event waits for the restart", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-health-" });
  const ledgerPath = join(home, "ledger.sqlite");
  let server = startServer({ asmHome: home, port: 0, drainEveryMs: 100, services: WATCH, routes: ROUTES });
  try {
    const before = hookEvent({ agent_session_id: "before-the-deletion" });
    drop(home, before);
    await waitFor("the first event", () => server.ledger.hasEvent(before.event_id));

    Deno.removeSync(ledgerPath);
    const sick = await waitFor("health to say the ledger is gone", async () => {
      const h = await health(server);
      return h.ok ? null : h;
    });
    assert.match(
      sick.problems.join("\n"),
      /Ledger: the ledger file .*ledger\.sqlite was deleted while asm had it/,
    );
    assert.equal(sick.parts.ledger.exists, false);
    // every writer refuses, not only the drain
    assert.throws(
      () => server.ledger.applyEvent(hookEvent({ agent_session_id: "direct" })),
      LedgerUnwritableError,
    );

    const after = hookEvent({ agent_session_id: "after-the-deletion", ts: "2026-11-29T22:05:00.000Z" });
    const waiting = drop(home, after);
    await new Promise((r) => setTimeout(r, 1000)); // ten drain passes and a watch tick
    assert.equal(exists(waiting), true, "the event stays in the inbox");
    assert.equal(server.ledger.hasEvent(after.event_id), false);
    await health(server);
    const refused = logLines(home, "ledger refuses writes");
    assert.equal(refused.length, 1, "one server.log line, however often it is looked at");
    // what the open connection still held was saved: the rebuild restores it
    const saved = String(refused[0].saved);
    assert.match(saved, /snapshots\/ledger-\d{8}T\d{9}Z\.sqlite$/);
    const snapshot = openReadOnly(saved)!;
    assert.deepEqual(snapshot.sessions({ all: true }).map((s) => s.asm_id), [before.asm_id]);
    snapshot.close();

    await server.close();
    server = startServer({ asmHome: home, port: 0, drainEveryMs: 100, services: [], routes: ROUTES });
    await waitFor("the waiting event, after the restart", () => server.ledger.hasEvent(after.event_id));
    assert.equal(exists(waiting), false);
    assert.equal((await health(server)).ok, true);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a read-only ledger holds writes, says so, and writes again without a restart once the mode is fixed", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-health-" });
  const ledgerPath = join(home, "ledger.sqlite");
  const server = startServer({ asmHome: home, port: 0, drainEveryMs: 100, services: WATCH, routes: ROUTES });
  let restore = () => {};
  try {
    const first = hookEvent({ agent_session_id: "before-read-only" });
    drop(home, first);
    await waitFor("the first event", () => server.ledger.hasEvent(first.event_id));

    restore = makeReadOnly(ledgerPath);
    const sick = await waitFor("health to say the ledger is read-only", async () => {
      const h = await health(server);
      return h.ok ? null : h;
    });
    assert.match(sick.problems.join("\n"), /^Ledger: the ledger file .*ledger\.sqlite is read-only/m);
    // the kernel's answer, root included: this is the read-only path, not a mode root would ignore
    assert.equal(sick.parts.ledger.writable, false);

    const held = hookEvent({ agent_session_id: "while-read-only", ts: "2026-11-29T22:05:00.000Z" });
    const waiting = drop(home, held);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(exists(waiting), true, "the event stays in the inbox while writes are held");
    assert.equal(server.ledger.hasEvent(held.event_id), false);
    assert.equal(logLines(home, "ledger writes held").length, 1);

    restore();
    restore = () => {};
    await waitFor("health to be ok again", async () => (await health(server)).ok);
    await waitFor("the held event, with no restart", () => server.ledger.hasEvent(held.event_id));
    assert.equal(exists(waiting), false);
    assert.equal(logLines(home, "ledger writable again").length, 1);
  } finally {
    restore();
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a ledger that cannot be opened for writing refuses at open with a sentence", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-health-" });
  const path = join(home, "ledger.sqlite");
  Ledger.open(path).close();
  const restore = makeReadOnly(path);
  try {
    assert.throws(() => Ledger.open(path), (err: Error) => {
      assert.ok(err instanceof LedgerError);
      assert.match(err.message, /cannot be opened for writing .*make it writable \(chmod u\+w /);
      return true;
    });
  } finally {
    restore();
    Deno.removeSync(home, { recursive: true });
  }
});
