/**
 * `asm cutover` and `asm rollback` on a scratch HOME whose data folder is a testing setup (a testing server
 * running, a throwaway board, a green gate run), with the real agents on PATH against loopback fakes and a
 * `systemctl` that plays a user manager (enablement as systemd records it: a link in default.target.wants).
 * A dry run changes nothing; a cutover made to fail at step 5 and then rolled back leaves every file it touched
 * byte-identical; a full cutover runs live on the real board, a testing server then refuses the real board
 * with the guard's sentence, and the rollback puts everything back, the testing server included.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAgents, offlineSetup } from "../agents/mod.ts";
import { defaultBoard } from "../board/mod.ts";
import { DEFAULT_LIST_IDS } from "../config/mod.ts";
import { fileState } from "../cutover/journal.ts";
import { currentHolder } from "../server/lock.ts";
import { type FakeServer, startFake } from "../../verify/fakes/mod.ts";
import { agentsBinDir } from "../../verify/prerequisites.ts";
import { ASM, asm, freePort, until } from "./_test_utils.ts";

interface World {
  root: string;
  home: string;
  asmHome: string;
  port: number;
  env: Record<string, string>;
  realBoard: string;
  unitFile: string;
  wantsLink: string;
  /** `enable` fails while this file exists (a user manager that refuses). */
  refuseEnable: string;
  fakes: FakeServer[];
}

/**
 * A `systemctl --user` with systemd's own bookkeeping: `enable` links the unit into default.target.wants,
 * `disable` removes the link, `is-enabled` reads it; `start` runs the unit's server (this checkout's asm, in
 * config.toml's mode) and `stop` ends it.
 */
function fakeSystemctl(root: string, unitFile: string, wantsLink: string, refuseEnable: string): string {
  const bin = join(root, "fake-bin");
  Deno.mkdirSync(bin);
  const pidFile = join(root, "unit.pid");
  Deno.writeTextFileSync(
    join(bin, "systemctl"),
    [
      "#!/bin/sh",
      '[ "$1" = --user ] && shift',
      'case "$1" in',
      "  show-environment|daemon-reload) exit 0 ;;",
      `  is-enabled) if [ -L '${wantsLink}' ]; then echo enabled; exit 0; fi`,
      `    if [ -f '${unitFile}' ]; then echo disabled; else echo not-found; fi; exit 1 ;;`,
      `  enable) if [ -f '${refuseEnable}' ]; then echo "Failed to enable unit: Access denied" >&2; exit 1; fi`,
      `    mkdir -p "$(dirname '${wantsLink}')" && ln -sf '${unitFile}' '${wantsLink}' ;;`,
      `  disable) rm -f '${wantsLink}' ;;`,
      `  start) '${ASM}' serve >/dev/null 2>&1 </dev/null & echo $! > '${pidFile}' ;;`,
      `  stop) [ -f '${pidFile}' ] && kill "$(cat '${pidFile}')" 2>/dev/null ;;`,
      "esac",
      "exit 0",
      "",
    ].join("\n"),
  );
  Deno.chmodSync(join(bin, "systemctl"), 0o755);
  return bin;
}

async function makeWorld(): Promise<World> {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-cutover-" }));
  const home = join(root, "home");
  const asmHome = join(home, ".asm");
  Deno.mkdirSync(asmHome, { recursive: true });
  Deno.mkdirSync(join(root, "tmp"));
  const port = freePort();
  const unitFile = join(home, ".config", "systemd", "user", "asm.service");
  const wantsLink = join(home, ".config", "systemd", "user", "default.target.wants", "asm.service");
  const refuseEnable = join(root, "refuse-enable");
  const bin = fakeSystemctl(root, unitFile, wantsLink, refuseEnable);
  const env: Record<string, string> = {
    HOME: home,
    ASM_HOME: asmHome,
    PATH: `${bin}:${Deno.env.get("ASM_AGENTS_BIN") || agentsBinDir()}:/usr/local/bin:/usr/bin:/bin`,
    TMPDIR: join(root, "tmp"),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
  };
  const fakes: FakeServer[] = [];
  const launchEnv: string[] = [];
  for (const agent of loadAgents()) {
    const setup = offlineSetup(agent);
    const fake = await startFake(setup.fakeKind);
    fakes.push(fake);
    Object.assign(env, setup.prepare({ home, fakeUrl: fake.url }));
    launchEnv.push(...setup.personEnv);
  }
  // the person's testing setup: a throwaway board, testing mode, their port
  Deno.writeTextFileSync(
    join(asmHome, "config.toml"),
    [
      "# my testing setup",
      `port = ${port}`,
      'mode = "testing"',
      "",
      "[launch]",
      `env = ${JSON.stringify(launchEnv)}`,
      "",
      "[board]",
      `path = "${join(root, "try", "board.md")}"   # the throwaway copy`,
      "",
    ].join("\n"),
  );
  Deno.mkdirSync(join(root, "try"));
  Deno.writeTextFileSync(join(root, "try", "board.md"), defaultBoard(DEFAULT_LIST_IDS));
  const realBoard = join(home, "vault", "board.md");
  Deno.mkdirSync(join(home, "vault"));
  Deno.writeTextFileSync(realBoard, defaultBoard(DEFAULT_LIST_IDS));
  return { root, home, asmHome, port, env, realBoard, unitFile, wantsLink, refuseEnable, fakes };
}

/** Every file a cutover may touch, and the real board, by path: its hash (null: not there). */
function touchable(w: World): Record<string, string | null> {
  const paths = [
    join(w.home, ".claude", "settings.json"),
    join(w.home, ".codex", "config.toml"),
    join(w.home, ".codex", "hooks.json"),
    join(w.home, ".gemini", "settings.json"),
    join(w.asmHome, "config.toml"),
    join(w.asmHome, "real-lists.json"),
    join(w.asmHome, "agents.env"),
    join(w.asmHome, "hook-agents.json"),
    join(w.asmHome, "bin", "asm-hook"),
    join(w.asmHome, "bin", "deno"),
    join(w.asmHome, "bin", "hook.ts"),
    w.unitFile,
    w.realBoard,
  ];
  const out: Record<string, string | null> = {};
  for (const p of paths) {
    const s = fileState(p);
    out[p] = s.sha256 === null ? null : `${s.sha256} ${s.mode?.toString(8)}`;
  }
  let backups: string[] = [];
  try {
    backups = [...Deno.readDirSync(join(w.asmHome, "backups"))].map((e) => e.name).sort();
  } catch { /* none */ }
  out["backups/"] = backups.join(",");
  return out;
}

/** Every file under HOME with its hash (the dry run must change none, not even make one). */
function wholeTree(dir: string, out: Record<string, string> = {}): Record<string, string> {
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) wholeTree(p, out);
    else if (e.isFile) out[p] = fileState(p).sha256!;
    else out[p] = "link";
  }
  return out;
}

function isLink(path: string): boolean {
  try {
    return Deno.lstatSync(path).isSymlink;
  } catch {
    return false;
  }
}

function modeLine(w: World): string {
  return Deno.readTextFileSync(join(w.asmHome, "config.toml")).split("\n").find((l) => l.startsWith("mode"))!;
}

Deno.test("asm cutover: a dry run changes nothing; a cutover failed at step 5 and a finished one both roll back to identical files", async (t) => {
  const w = await makeWorld();
  try {
    // the testing setup's gate run, recorded by the gate itself
    const gate = await asm(["verify", "gate0"], w.env);
    assert.equal(gate.code, 0, gate.text);
    const flags = ["--board-path", w.realBoard];

    await t.step(
      "a dry run prints the pre-flight and the 8 steps and changes nothing under HOME",
      async () => {
        const before = wholeTree(w.home);
        const dry = await asm(["cutover", "--dry-run", ...flags], w.env);
        assert.equal(dry.code, 0, dry.text);
        for (let n = 1; n <= 8; n++) assert.match(dry.text, new RegExp(`^  ${n}\\. `, "m"), dry.text);
        assert.match(
          dry.text,
          /^ {2}ok {3}gates: the newest run of each gate run here is green \(gate0 [^)]*\); never run here: gate1-hook, /m,
        );
        assert.match(
          dry.text,
          new RegExp(`^ {2}ok {3}board: the real board ${w.realBoard} reads: 0 in plan`, "m"),
        );
        assert.match(dry.text, /^dry run: nothing was changed$/m);
        assert.deepEqual(wholeTree(w.home), before);
      },
    );

    // the testing server of the setup, started the way a person restarts it
    const started = await asm(["restart"], w.env);
    assert.equal(started.code, 0, started.text);
    const testing = currentHolder(w.asmHome)!;
    assert.equal(testing.board_mode, "testing");

    await t.step(
      "a cutover that fails at step 5, then asm rollback: every file as it was, no unit enabled",
      async () => {
        const before = touchable(w);
        Deno.writeTextFileSync(w.refuseEnable, "");
        const cut = await asm(["cutover", "--no-canary", "--no-agent-env", ...flags], w.env);
        Deno.removeSync(w.refuseEnable);
        assert.equal(cut.code, 1, cut.text);
        assert.match(cut.text, /^step 5\/8: enable the autostart unit\n {2}FAILED: .*Access denied/m);
        assert.doesNotMatch(cut.text, /^step 6/m);
        assert.notDeepEqual(touchable(w), before, "steps 1 to 4 changed files");
        assert.equal(modeLine(w), 'mode = "testing"');

        const back = await asm(["rollback"], w.env);
        assert.equal(back.code, 0, back.text);
        assert.match(
          back.text,
          /undo step 5: .*\n(.*\n)*undo step 4: .*\n(.*\n)*undo step 3: .*\n(.*\n)*undo step 2:/,
        );
        assert.deepEqual(touchable(w), before);
        assert.equal(isLink(w.wantsLink), false, "no unit enabled");
        assert.equal(modeLine(w), 'mode = "testing"');
        assert.equal(currentHolder(w.asmHome)?.pid, testing.pid, "the testing server ran on untouched");
        const again = await asm(["rollback"], w.env);
        assert.match(again.text, /is already rolled back/);
      },
    );

    await t.step(
      "a full cutover runs live on the real board; then testing mode refuses it; the rollback restores all",
      async () => {
        const before = touchable(w);
        const cut = await asm(["cutover", "--agent-env", ...flags], w.env);
        assert.equal(cut.code, 0, cut.text);
        assert.match(cut.text, /^the cutover is done/m);
        assert.match(cut.text, /Claude Code's canary event was drained by the server/);
        assert.match(
          cut.text,
          new RegExp(`the first board pass, a dry run of ${w.realBoard}: 0 action\\(s\\)`),
        );
        const live = currentHolder(w.asmHome)!;
        assert.equal(live.board_mode, "live");
        assert.notEqual(live.pid, testing.pid);
        assert.equal(isLink(w.wantsLink), true, "the unit is enabled");
        assert.equal(modeLine(w), 'mode = "live"');

        const again = await asm(["cutover", ...flags], w.env);
        assert.equal(again.code, 1);
        assert.match(
          again.text,
          /^ {2}FAIL journal: asm already runs live since the cutover \S+: nothing to do/m,
        );
        assert.doesNotMatch(
          again.text,
          /FAIL board/,
          "the other checks are not judged on the cutover's own settings",
        );

        const refused = await asm(["serve", "--testing", "--port", String(freePort())], w.env);
        assert.notEqual(refused.code, 0);
        assert.match(
          refused.text,
          new RegExp(
            `asm will not start in testing mode: the configured board ${w.realBoard} is one of the real lists ` +
              `\\(real-lists\\.json\\)`,
          ),
        );
        // another testing setup pointed at the real board is refused by the person's own guard too
        const other = join(w.root, "other");
        Deno.mkdirSync(other);
        Deno.writeTextFileSync(join(other, "config.toml"), `[board]\npath = "${w.realBoard}"\n`);
        const refusedOther = await asm(["serve", "--testing", "--port", String(freePort())], {
          ...w.env,
          ASM_HOME: other,
        });
        assert.match(
          refusedOther.text,
          /asm will not start in testing mode: the configured board .* real lists/,
        );

        const back = await asm(["rollback"], w.env);
        assert.equal(back.code, 0, back.text);
        assert.deepEqual(touchable(w), before);
        assert.equal(isLink(w.wantsLink), false, "no unit enabled");
        assert.equal(modeLine(w), 'mode = "testing"');
        const after = await until("the testing server again", () => {
          const h = currentHolder(w.asmHome);
          return h && h.pid !== live.pid && h.port === w.port ? h : null;
        });
        assert.equal(after.board_mode, "testing");
      },
    );

    await t.step(
      "files a person edited after the cutover keep the edit: the rollback takes out only asm's part",
      async () => {
        const before = touchable(w);
        const config = join(w.asmHome, "config.toml");
        const gemini = join(w.home, ".gemini", "settings.json");
        const configBefore = Deno.readTextFileSync(config);
        const cut = await asm(["cutover", "--no-canary", "--no-autostart", ...flags], w.env);
        assert.equal(cut.code, 0, cut.text);
        assert.match(cut.text, /^ {2}done: skipped \(--no-autostart\)$/m);
        assert.match(
          cut.text,
          /no canary checked that a hook event reaches the new server: canaries were not run \(--no-canary\)/,
        );
        Deno.writeTextFileSync(config, "processed_days = 7\n" + Deno.readTextFileSync(config));
        const settings = JSON.parse(Deno.readTextFileSync(gemini));
        Deno.writeTextFileSync(gemini, JSON.stringify({ ...settings, person: "kept" }, null, 2));

        const back = await asm(["rollback"], w.env);
        assert.equal(back.code, 0, back.text);
        assert.match(
          back.text,
          /config\.toml changed after the cutover: only the keys the step set were set back \(mode\)/,
        );
        assert.match(
          back.text,
          /config\.toml changed after the cutover: only the keys the step set were set back \(board\.backend, board\.path\)/,
        );
        assert.equal(Deno.readTextFileSync(config), "processed_days = 7\n" + configBefore);
        const geminiNow = Deno.readTextFileSync(gemini);
        assert.equal(JSON.parse(geminiNow).person, "kept");
        assert.equal(geminiNow.includes("asm-hook"), false, geminiNow);
        const now = touchable(w);
        for (const path of Object.keys(before).filter((p) => p !== config && p !== gemini)) {
          assert.equal(now[path], before[path], path);
        }
      },
    );

    await t.step(
      "a kept copy lost before the rollback: the step's own keys are set back, and no testing server starts on the real board",
      async () => {
        const before = touchable(w);
        const cut = await asm(["cutover", "--no-canary", "--no-autostart", ...flags], w.env);
        assert.equal(cut.code, 0, cut.text);
        // the copy of config.toml as it was before the cutover
        const blob = join(
          w.asmHome,
          "cutover",
          "blobs",
          before[join(w.asmHome, "config.toml")]!.split(" ")[0],
        );
        Deno.removeSync(blob);
        const back = await asm(["rollback"], w.env);
        assert.equal(back.code, 0, back.text);
        assert.match(back.text, /the copy of .*config\.toml kept before the cutover is gone or changed/);
        assert.deepEqual(touchable(w), before);
        const after = await until("the testing server again", () => currentHolder(w.asmHome));
        assert.equal(after.board_mode, "testing");
      },
    );
  } finally {
    const left = currentHolder(w.asmHome);
    if (left) {
      Deno.kill(left.pid, "SIGTERM");
      for (let i = 0; i < 100 && currentHolder(w.asmHome) !== null; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    for (const fake of w.fakes) await fake.close();
    Deno.removeSync(w.root, { recursive: true });
  }
});
