/**
 * The drain as a person's server runs it: not as root. Root reads any file whatever its mode, so these run the
 * drain as uid 65534 (`setpriv`) in a scratch world it owns, with a file it may not read or a `processed/` it may
 * not write. They need root to set up and are skipped elsewhere (CI runs as root).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hookEvent } from "../ledger/_test_utils.ts";
import { namesIn, putEvent } from "./_test_utils.ts";

const NOBODY = 65534;
const SETPRIV = ["--reuid=65534", "--regid=65534", "--clear-groups"];

function canRun(): boolean {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return false;
  try {
    return new Deno.Command("setpriv", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}

/**
 * The child: one drain with its state, twice, as the server would run two passes; prints what happened. Given a
 * second argument (a path), it then writes \`<path>.ready\` and waits for the path to appear before a third pass
 * in the same process: the parent fixes the cause in between, as a person would while the server runs.
 */
const CHILD = `
import { join } from "node:path";
import { drainOnce, newDrainState } from "./lib/inbox/mod.ts";
import { Ledger } from "./lib/ledger/mod.ts";
const [home, fixed] = Deno.args;
const ledger = Ledger.open(join(home, "ledger.sqlite"));
const lines = [];
const state = newDrainState();
const deps = { asmHome: home, ledger, log: (l) => lines.push(l), failures: new Map(), state };
const passes = [drainOnce(deps), drainOnce(deps)];
if (fixed) {
  Deno.writeTextFileSync(fixed + ".ready", "");
  const seen = () => { try { Deno.statSync(fixed); return true; } catch { return false; } };
  for (let i = 0; i < 300 && !seen(); i++) await new Promise((r) => setTimeout(r, 50));
  passes.push(drainOnce(deps));
}
console.log(JSON.stringify({ uid: Deno.uid(), passes, lines, health: state.health, events: ledger.counts().events }));
ledger.close();
`;

interface ChildResult {
  uid: number;
  passes: Record<string, number>[];
  lines: Record<string, unknown>[];
  health: Record<string, unknown>;
  events: number;
}

/**
 * A world owned by 65534: the drain's modules (copied: the checkout may sit where 65534 cannot read), a Deno it
 * can run, a `DENO_DIR` it can write, and an `ASM_HOME` with an inbox.
 */
function otherUidWorld() {
  // /tmp, not $TMPDIR: every uid can reach it
  const root = Deno.makeTempDirSync({ dir: "/tmp", prefix: "asm-drain-uid-" });
  const repo = fileURLToPath(new URL("../../", import.meta.url));
  const code = join(root, "code");
  Deno.mkdirSync(code);
  run("cp", ["-R", join(repo, "lib"), code]);
  Deno.writeTextFileSync(join(code, "child.ts"), CHILD);
  const home = join(root, "home");
  for (const dir of ["inbox", "processed", "rejected"]) Deno.mkdirSync(join(home, dir), { recursive: true });
  Deno.mkdirSync(join(root, "deno_dir"));
  let deno = Deno.execPath();
  const runnable =
    new Deno.Command("setpriv", { args: [...SETPRIV, deno, "--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  if (!runnable) {
    // a parent of the pinned Deno is closed to others: a copy 65534 can run
    deno = join(root, "deno");
    Deno.copyFileSync(Deno.execPath(), deno);
    Deno.chmodSync(deno, 0o755);
  }
  run("chown", ["-R", `${NOBODY}:${NOBODY}`, root]);
  return {
    home,
    inbox: join(home, "inbox"),
    /** Runs the child; with `between`, calls it after the child's second pass and before its third. */
    async drain(between?: () => void): Promise<ChildResult> {
      const fixed = join(root, "fixed");
      const child = new Deno.Command("setpriv", {
        args: [
          ...SETPRIV,
          deno,
          "run",
          "-A",
          "--no-config",
          "--no-lock",
          join(code, "child.ts"),
          home,
          ...(between ? [fixed] : []),
        ],
        cwd: root,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: root,
          DENO_DIR: join(root, "deno_dir"),
          NO_COLOR: "1",
        },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      if (between) {
        for (let i = 0; i < 600 && !exists(`${fixed}.ready`); i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        between();
        Deno.writeTextFileSync(fixed, "");
      }
      const out = await child.output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `the drain as uid ${NOBODY} failed: ${stderr}`);
      return JSON.parse(new TextDecoder().decode(out.stdout));
    },
    cleanup: () => Deno.removeSync(root, { recursive: true }),
  };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[]): void {
  const out = new Deno.Command(cmd, { args }).outputSync();
  assert.equal(out.code, 0, `${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

function twentyEvents(home: string): void {
  for (let i = 0; i < 20; i++) {
    const e = hookEvent({
      agent_session_id: `uid-${i}`,
      ts: `2026-11-29T22:00:${String(i).padStart(2, "0")}.000Z`,
    });
    putEvent(home, `${e.event_id}.json`, e);
  }
}

Deno.test({
  name: "a file the drain's uid may not read is rejected with one line, and the other 20 events go in",
  ignore: !canRun(),
  async fn() {
    const w = otherUidWorld();
    try {
      twentyEvents(w.home);
      // root's, mode 000, and the oldest: the first file the pass meets
      const bad = join(w.inbox, "unreadable.json");
      Deno.writeTextFileSync(bad, JSON.stringify(hookEvent({ agent_session_id: "unreadable" })));
      Deno.chmodSync(bad, 0o000);
      Deno.utimeSync(bad, new Date(2000, 0, 1), new Date(2000, 0, 1));

      const result = await w.drain();
      assert.equal(result.uid, NOBODY);
      assert.equal(result.passes[0].applied, 20);
      assert.equal(result.passes[0].rejected, 1);
      assert.equal(result.events, 20);
      assert.equal(result.lines.length, 1);
      assert.equal(result.lines[0].what, "rejected");
      assert.equal(result.lines[0].file, "unreadable.json");
      assert.match(String(result.lines[0].why), /could not be read: .*[Pp]ermission denied/);
      assert.deepEqual(namesIn(w.inbox), []);
      assert.deepEqual(namesIn(join(w.home, "rejected")), ["unreadable.json"]);
      assert.equal(result.passes[1].listed, 0);
      assert.equal(result.health.ok, true);
      assert.equal(result.health.rejected_total, 1);
    } finally {
      w.cleanup();
    }
  },
});

Deno.test({
  name: "with a processed/ the drain's uid may not write, each event is applied once and its file skipped",
  ignore: !canRun(),
  async fn() {
    const w = otherUidWorld();
    try {
      twentyEvents(w.home);
      // root's again, 0755: 65534 may look in but not make today's folder there
      const processed = join(w.home, "processed");
      Deno.chownSync(processed, 0, 0);
      Deno.chmodSync(processed, 0o755);

      const result = await w.drain();
      assert.equal(result.passes[0].applied, 20);
      assert.equal(result.passes[0].remembered, 20);
      assert.equal(result.passes[1].listed, 0, "the second pass skips them");
      assert.equal(result.passes[1].applied + result.passes[1].duplicates, 0);
      assert.equal(result.events, 20, "never applied twice");
      const skips = result.lines.filter((l) => l.what === "drain skips file");
      assert.equal(skips.length, 20, "one line each");
      assert.equal(result.lines.length, 20);
      assert.match(
        String(skips[0].why),
        /stored, but the file could not be moved to processed\/: .*[Pp]ermission denied/,
      );
      assert.equal(result.health.ok, false);
      assert.equal(result.health.remembered, 20);
      assert.match(String(result.health.last_error), /20 name\(s\)/);
      assert.equal(namesIn(w.inbox).length, 20);
      assert.deepEqual(namesIn(join(w.home, "rejected")), []);
    } finally {
      w.cleanup();
    }
  },
});

Deno.test({
  name:
    "files the drain's uid could not move to processed/ go there once the folder is made its own, in the same process",
  ignore: !canRun(),
  async fn() {
    const w = otherUidWorld();
    try {
      twentyEvents(w.home);
      const processed = join(w.home, "processed");
      Deno.chownSync(processed, 0, 0);
      Deno.chmodSync(processed, 0o755);

      // the person fixes the folder while the drain runs on
      const result = await w.drain(() => Deno.chownSync(processed, NOBODY, NOBODY));
      assert.equal(result.passes[0].remembered, 20);
      assert.equal(result.passes[1].recovered, 0, "still root's: tried again, in vain");
      assert.equal(result.passes[2].recovered, 20);
      assert.equal(result.events, 20, "never applied twice");
      assert.deepEqual(namesIn(w.inbox), []);
      const day = namesIn(processed);
      assert.equal(day.length, 1);
      assert.equal(namesIn(join(processed, day[0])).length, 20);
      assert.equal(result.lines.filter((l) => l.what === "drain skips file").length, 20);
      assert.equal(result.lines.filter((l) => l.what === "drain took skipped file").length, 20);
      assert.equal(result.lines.length, 40, "one line when skipped, one when taken: nothing in between");
      assert.equal(result.health.ok, true);
      assert.equal(result.health.remembered, 0);
    } finally {
      w.cleanup();
    }
  },
});
