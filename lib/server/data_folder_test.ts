import assert from "node:assert/strict";
import { join } from "node:path";
import { privateMode, pruneProcessed, tightenDataFolder } from "./data_folder.ts";

function mode(path: string): number {
  return Deno.lstatSync(path).mode! & 0o777;
}

Deno.test("the modes a data folder's paths get: folders and executables 0700, the rest 0600", () => {
  assert.equal(privateMode(0o755, true), 0o700);
  assert.equal(privateMode(0o755, false), 0o700);
  assert.equal(privateMode(0o644, false), 0o600);
  assert.equal(privateMode(0o666, false), 0o600);
});

Deno.test("every path others could use is tightened at start; private ones and links are left as they are", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-data-" });
  try {
    Deno.chmodSync(home, 0o755);
    Deno.mkdirSync(join(home, "processed", "2026-11-30"), { recursive: true, mode: 0o755 });
    Deno.chmodSync(join(home, "processed"), 0o775);
    Deno.writeTextFileSync(join(home, "ledger.sqlite"), "x", { mode: 0o644 });
    Deno.chmodSync(join(home, "ledger.sqlite"), 0o644);
    Deno.writeTextFileSync(join(home, "processed", "2026-11-30", "e.json"), "{}");
    Deno.chmodSync(join(home, "processed", "2026-11-30", "e.json"), 0o666);
    Deno.writeTextFileSync(join(home, "token"), "t", { mode: 0o600 });
    Deno.writeTextFileSync(join(home, "run.sh"), "#!/bin/sh\n");
    Deno.chmodSync(join(home, "run.sh"), 0o755);
    Deno.symlinkSync("/etc/hostname", join(home, "link"));
    const changed = tightenDataFolder(home).changed.map((p) => p.slice(home.length)).sort();
    assert.deepEqual(changed, [
      "",
      "/ledger.sqlite",
      "/processed",
      "/processed/2026-11-30",
      "/processed/2026-11-30/e.json",
      "/run.sh",
    ]);
    assert.equal(mode(home), 0o700);
    assert.equal(mode(join(home, "ledger.sqlite")), 0o600);
    assert.equal(mode(join(home, "processed", "2026-11-30", "e.json")), 0o600);
    assert.equal(mode(join(home, "run.sh")), 0o700);
    assert.equal(mode(join(home, "token")), 0o600);
    assert.deepEqual(tightenDataFolder(home), { changed: [], failed: [] }, "a second start changes nothing");
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("drained events older than the kept days are removed, file by file, and their emptied folders", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-data-" });
  try {
    const day = (d: string) => join(home, "processed", d);
    for (const d of ["2026-10-01", "2026-10-31", "2026-11-01", "2026-11-30"]) {
      Deno.mkdirSync(day(d), { recursive: true });
      Deno.writeTextFileSync(join(day(d), "a.json"), "{}");
      Deno.writeTextFileSync(join(day(d), "b.json"), "{}");
    }
    // a folder holding something that is not a drained event stays, with that thing
    Deno.mkdirSync(join(day("2026-10-01"), "keep"));
    Deno.mkdirSync(join(home, "processed", "not-a-day"));
    const now = Date.parse("2026-12-01T12:00:00.000Z");
    assert.equal(pruneProcessed(home, 30, now), 4);
    const left = [...Deno.readDirSync(join(home, "processed"))].map((e) => e.name).sort();
    assert.deepEqual(left, ["2026-10-01", "2026-11-01", "2026-11-30", "not-a-day"]);
    assert.deepEqual([...Deno.readDirSync(day("2026-10-01"))].map((e) => e.name), ["keep"]);
    assert.equal(pruneProcessed(home, 30, now), 0);
    assert.equal(pruneProcessed(join(home, "none"), 30, now), 0, "no processed/ folder: nothing to do");
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
