import assert from "node:assert/strict";
import { join } from "node:path";
import { syncedFolderOf, syncedRefusal } from "./synced.ts";

Deno.test("a data folder inside Dropbox, iCloud Drive, OneDrive, Google Drive or Syncthing is named; others are not", () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-synced-" }));
  try {
    Deno.mkdirSync(join(root, "shared", "deep"), { recursive: true });
    Deno.writeTextFileSync(join(root, "shared", ".stfolder"), "");
    const cases: [string, string | null][] = [
      [join(root, "Dropbox", ".asm"), "Dropbox"],
      [join(root, "Dropbox (Work)", "x", ".asm"), "Dropbox"],
      [join(root, "Library", "Mobile Documents", "com~apple~CloudDocs", ".asm"), "iCloud Drive"],
      [join(root, "OneDrive - Contoso", ".asm"), "OneDrive"],
      [join(root, "Google Drive", "My Drive", ".asm"), "Google Drive"],
      [join(root, "shared", "deep", ".asm"), "Syncthing"],
      [join(root, "Sync", ".asm"), null], // a name alone is not Syncthing: its marker is
      [join(root, "home", ".asm"), null],
      [join(root, "dropboxes", ".asm"), null],
    ];
    for (const [path, service] of cases) assert.equal(syncedFolderOf(path)?.service ?? null, service, path);
    assert.equal(syncedRefusal(join(root, "home", ".asm")), null);
    assert.equal(
      syncedRefusal(join(root, "Dropbox", ".asm")),
      `asm's data folder ${root}/Dropbox/.asm is inside Dropbox (${root}/Dropbox); a syncing service copies its ` +
        "database and lock mid-write and breaks them. Set ASM_HOME to a folder outside it (the default is ~/.asm)",
    );
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
