import assert from "node:assert/strict";
import { join } from "node:path";
import {
  asmCommandAgent,
  commitEdits,
  detectJsonLayout,
  formatJson,
  latestBackup,
  uninstallFile,
  utcStamp,
  wrapperPathProblem,
  writeFileAtomic,
} from "./hook_file.ts";
import { listNames, tempHomes, thrown } from "./_test_utils.ts";

Deno.test("a file's own layout re-serialises it byte-for-byte", () => {
  const value = {
    hooks: { Stop: [{ hooks: [{ type: "command", command: "x", timeout: 3 }] }] },
    empty: [],
    o: {},
  };
  for (const indent of ["  ", " ", "    ", "\t"]) {
    for (const finalNewline of [true, false]) {
      const text = JSON.stringify(value, null, indent) + (finalNewline ? "\n" : "");
      assert.equal(
        formatJson(JSON.parse(text), detectJsonLayout(text)),
        text,
        JSON.stringify({ indent, finalNewline }),
      );
    }
  }
  const compact = JSON.stringify(value);
  assert.equal(formatJson(JSON.parse(compact), detectJsonLayout(compact)), compact);
  const crlf = JSON.stringify(value, null, 2).replaceAll("\n", "\r\n") + "\r\n";
  assert.equal(formatJson(JSON.parse(crlf), detectJsonLayout(crlf)), crlf);
});

Deno.test("the wrapper path is refused with a sentence when the agents could not run it unquoted", () => {
  assert.equal(wrapperPathProblem("/home/ana/.asm/bin/asm-hook"), null);
  assert.equal(wrapperPathProblem("/home/josé/.asm/bin/asm-hook"), null, "non-ASCII letters are fine for sh");
  assert.match(wrapperPathProblem("/home/my docs/.asm/bin/asm-hook")!, /contains whitespace/);
  assert.match(wrapperPathProblem(`/home/o"neil/bin/asm-hook`)!, /contains the character "\\""/);
  assert.match(wrapperPathProblem("/home/$USER/bin/asm-hook")!, /set ASM_HOME to a folder/);
  assert.match(wrapperPathProblem("bin/asm-hook")!, /is not absolute/);
});

Deno.test("asm's hook commands are recognised by the wrapper path and the agent name", () => {
  assert.equal(asmCommandAgent("/home/ana/.asm/bin/asm-hook claude"), "claude");
  assert.equal(asmCommandAgent("/tmp/x/bin/asm-hook gemini-work"), "gemini-work");
  assert.equal(asmCommandAgent("/tmp/x/bin/asm-hook claude extra"), null);
  assert.equal(asmCommandAgent("asm-hook claude"), null);
  assert.equal(asmCommandAgent("python3 /opt/probe/hook.py"), null);
  assert.equal(asmCommandAgent(42), null);
});

Deno.test("backup stamps are UTC and sort as text", () => {
  assert.equal(utcStamp(new Date("2026-11-29T22:13:07.621Z")), "20261129T221307621Z");
});

Deno.test("an atomic write keeps the file's mode and writes through a symlink", () => {
  using homes = tempHomes();
  const real = join(homes.root, "dotfiles", "settings.json");
  Deno.mkdirSync(join(homes.root, "dotfiles"));
  Deno.writeTextFileSync(real, "{}");
  Deno.chmodSync(real, 0o600);
  const link = join(homes.home, "settings.json");
  Deno.symlinkSync(real, link);
  writeFileAtomic(link, '{"a": 1}');
  assert.ok(Deno.lstatSync(link).isSymlink, "the link is still a link");
  assert.equal(Deno.readTextFileSync(real), '{"a": 1}');
  assert.equal(Deno.statSync(real).mode! & 0o777, 0o600);
  assert.deepEqual(
    listNames(join(homes.root, "dotfiles")),
    ["settings.json"],
    "no temporary file left behind",
  );
});

Deno.test("two installs in the same millisecond get two backups, and the newest is the one undone", () => {
  using homes = tempHomes();
  const path = join(homes.home, "x.json");
  const now = () => Date.parse("2026-11-29T22:13:07.621Z");
  Deno.writeTextFileSync(path, "one");
  commitEdits([{ agent: "claude", path, before: "one", after: "two" }], homes.backupsDir, now);
  commitEdits([{ agent: "claude", path, before: "two", after: "three" }], homes.backupsDir, now);
  assert.deepEqual(listNames(homes.backupsDir), [
    "claude-x.json-20261129T221307621Z",
    "claude-x.json-20261129T221307621Z-1",
    "claude-x.json-20261129T221307621Z-1.meta.json",
    "claude-x.json-20261129T221307621Z.meta.json",
  ]);
  assert.equal(latestBackup(homes.backupsDir, "claude", path)?.id, "claude-x.json-20261129T221307621Z-1");
  const strip = () => ({ kind: "nothing" as const });
  assert.equal(uninstallFile({ agent: "claude", path, backupsDir: homes.backupsDir, strip }).restored, true);
  assert.equal(Deno.readTextFileSync(path), "two");
  assert.equal(uninstallFile({ agent: "claude", path, backupsDir: homes.backupsDir, strip }).restored, true);
  assert.equal(Deno.readTextFileSync(path), "one");
  assert.equal(latestBackup(homes.backupsDir, "claude", path), null);
});

Deno.test("backups keep the original bytes (a byte order mark included) and are readable only by the user", () => {
  using homes = tempHomes();
  const path = join(homes.home, "settings.json");
  const original = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a": 1}\n')]);
  Deno.writeFileSync(path, original);
  const before = Deno.readTextFileSync(path);
  commitEdits([{ agent: "claude", path, before, after: '{"a": 1, "b": 2}\n' }], homes.backupsDir);
  const copy = listNames(homes.backupsDir).find((name) => !name.endsWith(".meta.json"))!;
  assert.deepEqual(Deno.readFileSync(join(homes.backupsDir, copy)), original);
  assert.equal(Deno.statSync(join(homes.backupsDir, copy)).mode! & 0o777, 0o600);
  const strip = () => ({ kind: "nothing" as const });
  assert.equal(uninstallFile({ agent: "claude", path, backupsDir: homes.backupsDir, strip }).restored, true);
  assert.deepEqual(Deno.readFileSync(path), original);
});

Deno.test("a file that changed between the plan and the write is left alone", () => {
  using homes = tempHomes();
  const path = join(homes.home, "settings.json");
  Deno.writeTextFileSync(path, "{}");
  const edit = { agent: "claude", path, before: "{}", after: '{"a": 1}' };
  Deno.writeTextFileSync(path, '{"theirs": true}');
  assert.match(
    thrown(() => commitEdits([edit], homes.backupsDir)).message,
    /changed while asm was installing/,
  );
  assert.equal(Deno.readTextFileSync(path), '{"theirs": true}');
  assert.deepEqual(listNames(homes.backupsDir), []);
});
