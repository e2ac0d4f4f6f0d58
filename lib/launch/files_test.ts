import assert from "node:assert/strict";
import { join } from "node:path";
import type { LaunchRow } from "../ledger/mod.ts";
import { launchFiles, launchFilesDone, removeLaunchFiles, sweepLaunchFiles } from "./files.ts";
import { pathExists } from "../files/mod.ts";

const EXPIRY = 120_000;

function row(over: Partial<LaunchRow>): LaunchRow {
  return {
    token: "asmlt_aaa",
    agent: "claude",
    kind: "launch",
    cwd: "/p",
    name: null,
    model: null,
    sprint_node: null,
    script_path: "/a/launches/asmlt_aaa.sh",
    prompt_path: null,
    requested_at: "2026-11-29T22:00:00.000Z",
    continues_asm_id: null,
    resumes_asm_id: null,
    waiting_reason: null,
    host: "tmux",
    window_id: null,
    pane_id: null,
    pane_pid: null,
    pane_proc_start: null,
    boot_id: null,
    matched_asm_id: null,
    matched_at: null,
    matched_by: null,
    expired: false,
    expired_at: null,
    error: null,
    ...over,
  };
}

Deno.test("a launch's files may go once it is matched, expired or never opened, and not while it is pending", () => {
  const table: [string, LaunchRow | null, number, boolean][] = [
    ["pending", row({}), 0, false],
    ["pending for longer than the expiry (the pass expires it first)", row({}), EXPIRY + 1, false],
    ["matched", row({ matched_asm_id: "a1" }), 0, true],
    ["expired", row({ expired: true }), 0, true],
    ["its window could not open", row({ error: "no tmux", expired: true }), 0, true],
    ["no launch row, fresh (asm is between writing the files and recording them)", null, 1000, false],
    ["no launch row, older than the expiry", null, EXPIRY + 1, true],
  ];
  for (const [what, launch, ageMs, done] of table) {
    assert.equal(launchFilesDone(launch, ageMs, EXPIRY), done, what);
  }
});

Deno.test("a launch's files are named by its token, and a name that is not a token is refused", () => {
  assert.deepEqual(launchFiles("/h/launches", "asmlt_k2"), {
    script: "/h/launches/asmlt_k2.sh",
    prompt: "/h/launches/asmlt_k2.prompt",
    env: "/h/launches/asmlt_k2.env",
  });
  for (const bad of ["../x", "asmlt_A", "asmlt_a/b", ""]) {
    assert.throws(() => launchFiles("/h/launches", bad), /not a launch token/);
  }
});

Deno.test("the sweep deletes only the files of launches that are done, never a folder or another file", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-files-test-" });
  try {
    const write = (name: string) => {
      Deno.writeTextFileSync(join(dir, name), name, { mode: 0o600 });
      return join(dir, name);
    };
    const done = ["asmlt_done.sh", "asmlt_done.prompt", "asmlt_done.env"].map(write);
    const pending = ["asmlt_wait.sh", "asmlt_wait.env"].map(write);
    const other = [write("notes.txt"), write("asmlt_done.sh.bak")];
    // a folder named like a launch file, holding a file: neither is touched
    Deno.mkdirSync(join(dir, "asmlt_done.prompt.d"));
    Deno.mkdirSync(join(dir, "asmlt_gone.sh"));
    Deno.writeTextFileSync(join(dir, "asmlt_gone.sh", "keep"), "x");
    const rows: Record<string, LaunchRow | null> = {
      asmlt_done: row({ token: "asmlt_done", matched_asm_id: "a1" }),
      asmlt_wait: row({ token: "asmlt_wait" }),
      asmlt_gone: null,
    };
    const deleted = sweepLaunchFiles(dir, (t) => rows[t] ?? null, { nowMs: Date.now(), expiryMs: EXPIRY });
    assert.deepEqual(deleted.sort(), [...done].sort());
    assert.deepEqual(done.filter(pathExists), []);
    assert.deepEqual(pending.filter(pathExists), pending);
    assert.deepEqual(other.filter(pathExists), other);
    assert.equal(
      pathExists(join(dir, "asmlt_gone.sh", "keep")),
      true,
      "a folder is never removed or entered",
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("removing a launch's files leaves a folder of the same name, and a file already gone is fine", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-files-test-" });
  try {
    const files = launchFiles(dir, "asmlt_x");
    Deno.writeTextFileSync(files.script, "#!/bin/sh\n");
    Deno.mkdirSync(files.env);
    const logged: Record<string, unknown>[] = [];
    assert.deepEqual(removeLaunchFiles(dir, "asmlt_x", (l) => logged.push(l)), [files.script]);
    assert.equal(pathExists(files.env), true);
    assert.match(String(logged[0]?.why), /it is a folder/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
