import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../ledger/_test_utils.ts";
import { Ledger, openReadOnly } from "../ledger/mod.ts";
import { listSnapshots, newestSnapshot, snapshotsDir, takeSnapshot } from "./snapshots.ts";
import { snapshotIfDue } from "./service.ts";

function world(): { home: string; ledger: Ledger; logged: Record<string, unknown>[] } & Disposable {
  const home = Deno.makeTempDirSync({ prefix: "asm-snapshots-" });
  const ledger = Ledger.open(join(home, "ledger.sqlite"));
  return {
    home,
    ledger,
    logged: [],
    [Symbol.dispose]() {
      ledger.close();
      Deno.removeSync(home, { recursive: true });
    },
  };
}

const mode = (path: string) => Deno.statSync(path).mode! & 0o777;

Deno.test("the snapshot service writes a 0600 snapshot in a 0700 folder, off the event loop, and keeps the last 3", async () => {
  using w = world();
  const e = hookEvent({ agent_session_id: "in-every-snapshot" });
  w.ledger.applyEvent(e);
  const ctx = {
    asmHome: w.home,
    ledger: w.ledger,
    log: (l: Record<string, unknown>) => void w.logged.push(l),
  };
  let clock = Date.parse("2026-03-01T10:00:00.000Z");
  const taken: string[] = [];
  for (let i = 0; i < 5; i++) {
    const report = await snapshotIfDue(ctx, { now: () => clock });
    assert.ok(report, `look ${i} took a snapshot`);
    taken.push(report.snapshot.path);
    // not due again within the hour
    clock += 59 * 60_000;
    assert.equal(await snapshotIfDue(ctx, { now: () => clock }), null);
    clock += 60_000;
  }
  const kept = listSnapshots(w.home);
  assert.deepEqual(kept.map((s) => s.path), taken.slice(2), "the three newest, the older removed");
  assert.equal(mode(snapshotsDir(w.home)), 0o700);
  for (const s of kept) assert.equal(mode(s.path), 0o600, `${s.name} is 0600`);
  assert.equal(newestSnapshot(w.home)?.path, taken[4]);
  assert.deepEqual(
    [...Deno.readDirSync(snapshotsDir(w.home))].map((d) => d.name).sort(),
    kept.map((s) => s.name),
  );
  const copy = openReadOnly(kept[2].path)!;
  assert.deepEqual(copy.sessions({ all: true }).map((s) => s.asm_id), [e.asm_id]);
  copy.close();
  assert.equal(w.logged.filter((l) => l.what === "snapshot").length, 5);
});

Deno.test("a snapshot that fails leaves nothing behind, and an unfinished one is never the newest", async () => {
  using w = world();
  await assert.rejects(
    takeSnapshot({
      asmHome: w.home,
      copy: () => {
        throw new Error("disk full");
      },
    }),
    /the ledger snapshot into .* failed: disk full/,
  );
  assert.deepEqual([...Deno.readDirSync(snapshotsDir(w.home))], []);
  // a .partial a crash left behind: not a snapshot, and removed once it is an hour old
  const stale = join(snapshotsDir(w.home), "ledger-20260301T090000000Z.sqlite.partial");
  Deno.writeFileSync(stale, new Uint8Array(10));
  assert.equal(newestSnapshot(w.home), null);
  await takeSnapshot({
    asmHome: w.home,
    copy: (target) => w.ledger.snapshotInto(target),
    now: () => Date.parse("2026-03-01T10:30:00.000Z"),
  });
  assert.deepEqual([...Deno.readDirSync(snapshotsDir(w.home))].map((d) => d.name), [
    "ledger-20260301T103000000Z.sqlite",
  ]);
});
