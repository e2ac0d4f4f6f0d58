import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../ledger/_test_utils.ts";
import { Ledger } from "../ledger/mod.ts";
import {
  type DrainIo,
  drainOnce,
  MAX_EVENT_FILE_BYTES,
  MAX_PAYLOAD_BYTES,
  REAL_DRAIN_IO,
  SKIPPED_RETRY_FAILURES,
} from "./mod.ts";
import { drainHome, makeFifo, makeNonUtf8Name, makeUnwritable, namesIn, putEvent } from "./_test_utils.ts";

/** The real file system, with every read written down (what was asked, what came back). */
function recordingIo(before?: (path: string) => void) {
  const reads: { path: string; limit: number; got: number }[] = [];
  const io: DrainIo = {
    ...REAL_DRAIN_IO,
    read(path, limit) {
      before?.(path);
      const bytes = REAL_DRAIN_IO.read(path, limit);
      reads.push({ path, limit, got: bytes.length });
      return bytes;
    },
  };
  return { io, reads };
}

function goodEvents(home: string, n: number): string[] {
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = hookEvent({
      agent_session_id: `isolated-${i}`,
      ts: new Date(Date.UTC(2026, 10, 29, 22, 0, 0, i)).toISOString(),
    });
    putEvent(home, `${e.event_id}.json`, e);
    names.push(`${e.event_id}.json`);
  }
  return names.sort();
}

/** The real file system, with every move written down (the entry's name, the folder, and whether it went). */
function movingIo() {
  const moves: { name: string; folder: string; ok: boolean }[] = [];
  const io: DrainIo = {
    ...REAL_DRAIN_IO,
    move(from, folder, name) {
      try {
        const got = REAL_DRAIN_IO.move(from, folder, name);
        moves.push({ name, folder, ok: true });
        return got;
      } catch (err) {
        moves.push({ name, folder, ok: false });
        throw err;
      }
    },
  };
  return { io, moves };
}

Deno.test("a file swapped for a FIFO between the listing and the open is moved aside, and the pass goes on", () => {
  const w = drainHome();
  goodEvents(w.home, 5);
  const swapped = hookEvent({ agent_session_id: "swapped" });
  putEvent(w.home, "swapped.json", swapped);
  // the race, made certain: the listing saw a regular file; by the open, a FIFO with no writer is there
  const { io } = recordingIo((path) => {
    if (!path.endsWith("/swapped.json")) return;
    Deno.removeSync(path);
    makeFifo(path);
  });
  const started = performance.now();
  const report = drainOnce({ ...w.deps, io });
  assert.ok(performance.now() - started < 2000, "the open of the FIFO did not block the pass");
  assert.equal(report.applied, 5);
  assert.equal(report.rejected, 1);
  assert.equal(Deno.lstatSync(join(w.home, "rejected", "swapped.json")).isFifo, true);
  const rejected = w.lines.filter((l) => l.what === "rejected");
  assert.equal(rejected.length, 1);
  assert.equal(rejected[0].file, "swapped.json");
  assert.match(String(rejected[0].why), /FIFO/);
  assert.deepEqual(namesIn(w.inbox), []);
  w.cleanup();
});

Deno.test("links, FIFOs, folders, a name that is not UTF-8 and oversized files never stop the pass", () => {
  const w = drainHome();
  goodEvents(w.home, 10);
  makeFifo(join(w.inbox, "fifo.json"));
  Deno.writeTextFileSync(join(w.home, "secret"), JSON.stringify(hookEvent({ agent_session_id: "secret" })));
  Deno.symlinkSync(join(w.home, "secret"), join(w.inbox, "link.json"));
  Deno.mkdirSync(join(w.inbox, "x.json"));
  Deno.writeTextFileSync(join(w.inbox, "notes.txt"), "not an event");
  const unnameable = makeNonUtf8Name(w.inbox);
  // 5 MB: over the hook's own payload limit, so the hook could never have written it
  const huge = hookEvent({ agent_session_id: "huge", payload: { prompt: "x".repeat(5 * 1024 * 1024) } });
  putEvent(w.home, "huge.json", huge);
  const sparse = join(w.inbox, "sparse.json");
  Deno.writeFileSync(sparse, new Uint8Array(0));
  Deno.truncateSync(sparse, 600 * 1024 * 1024);

  const { io, reads } = recordingIo();
  const started = performance.now();
  const report = drainOnce({ ...w.deps, io });
  const ms = performance.now() - started;

  assert.equal(report.applied, 10, "every good event went in, in the same pass");
  assert.equal(w.ledger.counts().events, 10);
  assert.equal(report.rejected, 6);
  assert.equal(report.remembered, 1);
  assert.deepEqual(namesIn(join(w.home, "rejected")), [
    "fifo.json",
    "huge.json",
    "link.json",
    "notes.txt",
    "sparse.json",
    "x.json",
  ]);
  assert.equal(
    Deno.lstatSync(join(w.home, "rejected", "link.json")).isSymlink,
    true,
    "the link itself moved",
  );
  assert.equal(Deno.readTextFileSync(join(w.home, "secret")).length > 0, true);
  // only regular .json files were ever opened, and the big ones only up to the limit + 1 byte
  const opened = reads.map((r) => r.path.slice(w.inbox.length + 1));
  for (const never of ["fifo.json", "link.json", "x.json", "notes.txt", unnameable]) {
    assert.equal(opened.includes(never), false, `${never} was never opened`);
  }
  for (const name of ["huge.json", "sparse.json"]) {
    const read = reads.find((r) => r.path.endsWith(`/${name}`))!;
    assert.equal(read.limit, MAX_EVENT_FILE_BYTES + 1);
    assert.ok(read.got <= MAX_EVENT_FILE_BYTES + 1, `${name}: ${read.got} bytes read`);
  }
  assert.ok(ms < 1500, `a pass over a 600 MB file stays short (${Math.round(ms)} ms)`);
  // one line each, naming it and why
  const lines = w.lines.filter((l) => l.what === "rejected" || l.what === "drain skips file");
  assert.equal(lines.length, 7);
  const why = (file: string) => String(lines.find((l) => l.file === file)?.why);
  assert.match(why("fifo.json"), /a FIFO/);
  assert.match(why("link.json"), /a link/);
  assert.match(why("x.json"), /a folder/);
  assert.match(why("huge.json"), /larger than/);
  assert.match(why("sparse.json"), /larger than/);
  assert.match(why(unnameable), /not valid UTF-8/);
  // the name asm cannot move is skipped from now on, without another line, and the health says so
  assert.deepEqual(namesIn(w.inbox), [unnameable]);
  assert.equal(w.state.health.ok, false);
  assert.equal(w.state.health.remembered, 1);
  assert.equal(w.state.health.rejected_total, 6);
  assert.match(w.state.health.last_error!, /not valid UTF-8/);
  const moving = movingIo();
  const again = drainOnce({ ...w.deps, io: moving.io });
  assert.equal(again.listed, 0);
  assert.deepEqual(moving.moves, [], "a name asm cannot name is never tried again");
  assert.equal(w.lines.length, lines.length);
  // removed by hand: forgotten, and the drain is well again
  new Deno.Command("sh", { args: ["-c", 'rm -f "$1"/bad*.json', "sh", w.inbox] }).outputSync();
  drainOnce({ ...w.deps, io });
  assert.equal(w.state.health.ok, true);
  assert.equal(w.state.health.remembered, 0);
  assert.equal(w.state.remembered.size, 0);
  w.cleanup();
});

Deno.test("an event at the hook's own payload limit still goes in", () => {
  const w = drainHome();
  const e = hookEvent({ payload: { prompt: "y".repeat(MAX_PAYLOAD_BYTES - 64) } });
  putEvent(w.home, `${e.event_id}.json`, e);
  assert.equal(drainOnce(w.deps).applied, 1);
  w.cleanup();
});

Deno.test("the drain's payload limit is the hook's", () => {
  const hook = Deno.readTextFileSync(new URL("../../hooks/hook.ts", import.meta.url));
  const m = hook.match(/const MAX_PAYLOAD_BYTES = ([0-9 *]+);/);
  assert.ok(m, "hooks/hook.ts defines MAX_PAYLOAD_BYTES");
  const hookLimit = m[1].split("*").reduce((product, n) => product * Number(n.trim()), 1);
  assert.equal(MAX_PAYLOAD_BYTES, hookLimit);
});

Deno.test("a file asm cannot move aside is remembered and skipped with one line, and the rest goes in", () => {
  const w = drainHome();
  goodEvents(w.home, 3);
  putEvent(w.home, "broken.json", "{not json");
  const io: DrainIo = {
    ...REAL_DRAIN_IO,
    move(from, folder, name) {
      if (folder.endsWith("rejected")) {
        throw new Deno.errors.PermissionDenied("permission denied (os error 13)");
      }
      return REAL_DRAIN_IO.move(from, folder, name);
    },
  };
  drainOnce({ ...w.deps, io }); // the first parse failure is retried
  const second = drainOnce({ ...w.deps, io });
  assert.equal(second.remembered, 1);
  assert.equal(w.ledger.counts().events, 3);
  const skips = w.lines.filter((l) => l.what === "drain skips file");
  assert.equal(skips.length, 1);
  assert.equal(skips[0].file, "broken.json");
  assert.match(String(skips[0].why), /not JSON.*could not be moved to rejected\/: permission denied/);
  assert.equal(drainOnce({ ...w.deps, io }).listed, 0);
  assert.equal(w.lines.filter((l) => l.what === "drain skips file").length, 1);
  assert.equal(w.state.health.ok, false);
  assert.equal(w.state.health.backlog, 0);
  w.cleanup();
});

Deno.test("an event stored but not movable to processed/ is applied once, then skipped, never rejected", () => {
  const w = drainHome();
  goodEvents(w.home, 4);
  const io: DrainIo = {
    ...REAL_DRAIN_IO,
    move(from, folder, name) {
      if (folder.includes("processed")) {
        throw new Deno.errors.PermissionDenied("permission denied (os error 13)");
      }
      return REAL_DRAIN_IO.move(from, folder, name);
    },
  };
  const first = drainOnce({ ...w.deps, io });
  assert.equal(first.applied, 4);
  assert.equal(first.remembered, 4);
  const second = drainOnce({ ...w.deps, io });
  assert.equal(second.listed, 0);
  assert.equal(second.applied + second.duplicates, 0);
  assert.equal(w.ledger.counts().events, 4);
  assert.equal(w.lines.filter((l) => l.what === "drain skips file").length, 4);
  assert.deepEqual(namesIn(join(w.home, "rejected")), []);
  assert.equal(w.state.health.ok, false);
  assert.equal(w.state.health.remembered, 4);
  assert.match(w.state.health.last_error!, /4 name\(s\).*could not be moved to processed/);
  w.cleanup();
});

Deno.test("a full disk is logged with its own cause, once, and its files wait for the next pass", () => {
  const w = drainHome();
  const small = hookEvent({ agent_session_id: "small", ts: "2026-11-29T22:00:00.000Z" });
  putEvent(w.home, "a-small.json", small);
  drainOnce(w.deps);
  // SQLite's own "disk full": the database may not grow by one page
  const pages = Number(w.ledger.query("PRAGMA page_count")[0].page_count);
  w.ledger.query(`PRAGMA max_page_count = ${pages}`);
  const big = hookEvent({ agent_session_id: "big", payload: { prompt: "z".repeat(200_000) } });
  putEvent(w.home, "b-big.json", big);

  // the ledger itself: the cause is thrown, not SQLite's failed ROLLBACK after it rolled back on its own
  assert.throws(() => w.ledger.applyEvent(big), /database or disk is full/);

  for (let pass = 1; pass <= 3; pass++) {
    const report = drainOnce(w.deps);
    assert.equal(report.write_failed, 1);
    assert.equal(report.backlog, 1);
  }
  const failed = w.lines.filter((l) => l.what === "drain write failed");
  assert.equal(failed.length, 1, "logged once, not every pass");
  assert.equal(failed[0].file, "b-big.json");
  assert.match(String(failed[0].error), /database or disk is full/);
  assert.equal(JSON.stringify(w.lines).includes("cannot rollback"), false);
  assert.deepEqual(namesIn(w.inbox), ["b-big.json"]);
  assert.equal(w.state.health.ok, false, "a backlog that does not shrink while writes fail");
  assert.match(w.state.health.last_error!, /database or disk is full/);

  // the disk has room again: the file goes in, and the drain is well
  w.ledger.query("PRAGMA max_page_count = 1073741823");
  assert.equal(drainOnce(w.deps).applied, 1);
  assert.equal(w.ledger.session(big.asm_id) !== null, true);
  assert.equal(w.state.health.ok, true);
  assert.equal(w.state.health.last_error, null);
  w.cleanup();
});

Deno.test("an inbox that cannot be listed fails the pass once in the log and in the health", () => {
  const w = drainHome();
  const io: DrainIo = {
    ...REAL_DRAIN_IO,
    list() {
      throw new Deno.errors.PermissionDenied("permission denied (os error 13)");
    },
  };
  drainOnce({ ...w.deps, io });
  drainOnce({ ...w.deps, io });
  assert.equal(w.lines.filter((l) => l.what === "drain failed").length, 1);
  assert.equal(w.state.health.ok, false);
  assert.equal(w.state.health.last_good_pass_at, null);
  assert.match(w.state.health.last_error!, /cannot list .*permission denied/);
  drainOnce(w.deps);
  assert.equal(w.state.health.ok, true);
  w.cleanup();
});

Deno.test("a stored event whose processed/<date> could not be written goes there on a later pass once it can, without a restart", () => {
  const w = drainHome();
  const deps = { ...w.deps, now: () => Date.parse("2026-12-04T10:00:00.000Z") };
  const day = join(w.home, "processed", "2026-12-04");
  Deno.mkdirSync(day, { recursive: true });
  const fix = makeUnwritable(day);
  try {
    const names = goodEvents(w.home, 3);
    const first = drainOnce(deps);
    assert.equal(first.applied, 3);
    assert.equal(first.remembered, 3);
    assert.equal(w.state.health.ok, false);
    assert.match(w.state.health.last_error!, /3 name\(s\).*could not be moved to processed\//);
    // still unwritable: tried again without a word, and never applied twice
    const second = drainOnce(deps);
    assert.deepEqual([second.listed, second.applied, second.duplicates, second.recovered], [0, 0, 0, 0]);
    assert.deepEqual(namesIn(w.inbox), names);
    const skips = w.lines.filter((l) => l.what === "drain skips file");
    assert.equal(skips.length, 3, "one line each, when first skipped");
    assert.match(String(skips[0].why), /tries again on later passes/);

    fix();
    const third = drainOnce(deps);
    assert.equal(third.recovered, 3);
    assert.deepEqual(namesIn(w.inbox), []);
    assert.deepEqual(namesIn(day), names);
    assert.equal(w.ledger.counts().events, 3, "each event once");
    const took = w.lines.filter((l) => l.what === "drain took skipped file");
    assert.deepEqual(took.map((l) => l.file).sort(), names);
    assert.equal(took[0].to, `processed/2026-12-04/${took[0].file}`);
    assert.equal(took[0].skipped_since, "2026-12-04T10:00:00.000Z");
    // the health is green by itself
    assert.equal(w.state.health.ok, true);
    assert.equal(w.state.health.remembered, 0);
    assert.equal(w.state.health.last_error, null);
    const quiet = w.lines.length;
    drainOnce(deps);
    assert.equal(w.lines.length, quiet, "nothing more to say");
  } finally {
    fix();
    w.cleanup();
  }
});

Deno.test("a skipped file whose event the ledger no longer holds is read and applied again before it is moved", () => {
  const w = drainHome();
  const deps = { ...w.deps, now: () => Date.parse("2026-12-04T10:00:00.000Z") };
  const day = join(w.home, "processed", "2026-12-04");
  Deno.mkdirSync(day, { recursive: true });
  const fix = makeUnwritable(day);
  const other = Ledger.open(join(w.home, "other.sqlite"));
  try {
    const [name] = goodEvents(w.home, 1);
    assert.equal(drainOnce(deps).remembered, 1);
    fix();
    // another ledger, one that never took the event (a ledger put back from a copy)
    const report = drainOnce({ ...deps, ledger: other });
    assert.deepEqual([report.applied, report.recovered], [1, 1]);
    assert.equal(other.counts().events, 1);
    assert.deepEqual(namesIn(day), [name]);
    assert.equal(w.lines.filter((l) => l.what === "drain skips file").length, 1);
    assert.deepEqual(w.lines.filter((l) => l.what === "drain took skipped file").map((l) => l.to), [
      `processed/2026-12-04/${name}`,
    ]);
    assert.equal(w.state.health.ok, true);
  } finally {
    fix();
    other.close();
    w.cleanup();
  }
});

Deno.test("files that could not be moved to rejected/ (a file stood where the folder goes) go there once it is a folder again", () => {
  const w = drainHome();
  goodEvents(w.home, 2);
  Deno.writeTextFileSync(join(w.home, "rejected"), "not a folder");
  Deno.writeTextFileSync(join(w.inbox, "notes.txt"), "not an event");
  putEvent(w.home, "broken.json", "{not json");
  drainOnce(w.deps); // notes.txt skipped at once; broken.json's first failure is retried
  drainOnce(w.deps); // broken.json skipped
  assert.equal(w.ledger.counts().events, 2);
  assert.deepEqual(namesIn(w.inbox), ["broken.json", "notes.txt"]);
  assert.equal(w.state.health.remembered, 2);
  assert.match(
    w.state.health.last_error!,
    /notes\.txt: its name does not end in \.json, and it could not be moved/,
  );
  drainOnce(w.deps);
  assert.equal(w.lines.filter((l) => l.what === "drain skips file").length, 2);

  Deno.removeSync(join(w.home, "rejected"));
  const fixed = drainOnce(w.deps);
  assert.equal(fixed.recovered, 2);
  assert.equal(fixed.rejected, 2);
  assert.deepEqual(namesIn(join(w.home, "rejected")), ["broken.json", "notes.txt"]);
  assert.deepEqual(namesIn(w.inbox), []);
  const took = w.lines.filter((l) => l.what === "drain took skipped file");
  assert.deepEqual(took.map((l) => [l.file, l.to]).sort(), [
    ["broken.json", "rejected/broken.json"],
    ["notes.txt", "rejected/notes.txt"],
  ]);
  assert.equal(w.state.health.ok, true);
  assert.equal(w.state.health.rejected_total, 2);
  w.cleanup();
});

Deno.test("a thousand skipped names cost a pass a few tries while their cause lasts, and all go through in one pass after", () => {
  const w = drainHome();
  const names = goodEvents(w.home, 1000);
  // a file where processed/ goes: no date folder can be made in it
  Deno.writeTextFileSync(join(w.home, "processed"), "not a folder");
  const { io, moves } = movingIo();
  const deps = { ...w.deps, io };
  assert.equal(drainOnce(deps).remembered, 1000);
  assert.equal(w.lines.filter((l) => l.what === "drain skips file").length, 1000);

  const tried: string[][] = [];
  for (let pass = 0; pass < 3; pass++) {
    moves.length = 0;
    const started = performance.now();
    const report = drainOnce(deps);
    const ms = performance.now() - started;
    assert.equal(report.listed, 0);
    assert.equal(moves.length, SKIPPED_RETRY_FAILURES, `pass ${pass}: ${moves.length} moves tried`);
    assert.ok(ms < 200, `a pass over 1000 skipped names stays short (${Math.round(ms)} ms)`);
    tried.push(moves.map((m) => m.name));
  }
  // least recently tried first: each pass tries other names than the pass before
  assert.equal(new Set(tried.flat()).size, 3 * SKIPPED_RETRY_FAILURES);
  assert.equal(w.lines.length, 1000, "a failed try again is not logged");

  Deno.removeSync(join(w.home, "processed"));
  moves.length = 0;
  const fixed = drainOnce(deps);
  assert.equal(fixed.recovered, 1000);
  assert.equal(moves.filter((m) => m.ok).length, 1000);
  assert.deepEqual(namesIn(w.inbox), []);
  assert.equal(w.ledger.counts().events, 1000);
  assert.equal(w.state.health.ok, true);
  assert.equal(names.length, 1000);
  w.cleanup();
});

Deno.test("a file the server could not open for want of descriptors stays in the inbox, is never rejected, and is applied once it can", () => {
  const h = drainHome();
  try {
    const names = goodEvents(h.home, 3);
    let starved = true;
    // the server's own trouble, as the kernel reports it: no descriptor left to open the file with
    const { io } = recordingIo(() => {
      if (starved) throw new Error("Too many open files (os error 24)");
    });
    for (let pass = 0; pass < 3; pass++) {
      const report = drainOnce({ ...h.deps, io });
      assert.equal(report.unread, 3);
      assert.equal(report.rejected, 0);
      assert.equal(report.failed, 0, "not counted toward the two failures that reject a file");
    }
    assert.deepEqual(namesIn(h.inbox), names, "all three still wait in the inbox");
    assert.deepEqual(namesIn(join(h.home, "rejected")), []);
    assert.match(h.state.health?.last_error ?? "", /could not open 3 event file\(s\).*Too many open files/);
    starved = false;
    const report = drainOnce({ ...h.deps, io });
    assert.equal(report.applied, 3);
    assert.deepEqual(namesIn(h.inbox), []);
    assert.equal(h.state.health?.last_error, null);
  } finally {
    h.cleanup();
  }
});
