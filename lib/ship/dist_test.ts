/**
 * The one downloaded file, as a person gets it: built once, copied alone into an empty folder, run with a PATH
 * that holds only a shell's basic tools (no deno, node or npm) in a scratch HOME that has a real agent's session.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { buildDist } from "./build.ts";
import { runningServer } from "../server/client.ts";
import { barePath, copiedAlone } from "../../verify/one_file.ts";

const FIXTURES = Deno.env.get("ASM_FIXTURES") ??
  new URL("../../../shared/fixtures", import.meta.url).pathname;
/** A session Claude Code wrote in a terminal (shown in the list: typed prompts, renamed). */
const CLAUDE_ID = "9489399f-ac78-4316-81cd-2726c9579121";
async function runFile(file: string, args: string[], env: Record<string, string>, cwd: string) {
  const out = await new Deno.Command(file, { args, env, clearEnv: true, cwd, stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

Deno.test("dist/asm alone, with no deno, node or npm on PATH: serves, lists the session, two first runs leave one cache, and a tree changed after unpack is not run", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-dist-" }));
  try {
    const built = await buildDist({ out: join(root, "build", "asm"), say: () => {} });
    const file = copiedAlone(built.path, root);
    const alone = dirname(file);
    const home = join(root, "home");
    const projects = join(home, ".claude", "projects", "-tmp-cc-proj-5");
    Deno.mkdirSync(projects, { recursive: true });
    Deno.copyFileSync(
      join(
        FIXTURES,
        "claude/interactive/transcripts",
        `before-clear.chat-tool-skill-rename.${CLAUDE_ID}.jsonl`,
      ),
      join(projects, `${CLAUDE_ID}.jsonl`),
    );
    const env = { HOME: home, PATH: barePath(root) };
    for (const tool of ["deno", "node", "npm"]) {
      const found = await runFile("/bin/sh", ["-c", `command -v ${tool} || echo none`], env, alone);
      assert.equal(found.text.trim(), "none", `${tool} is not on the PATH the file runs with`);
    }

    const version = await runFile(file, ["--version"], env, alone);
    assert.equal(version.text.trim(), `asm ${built.version} (${built.commit})`);

    // a first run killed mid-unpack left its folder (its process is gone): the next first run sweeps it
    const gone = new Deno.Command("true").spawn();
    await gone.status;
    const stale = join(home, ".cache", "asm", `.unpack-${gone.pid}-${built.version}-0123456789abcdef`);
    Deno.mkdirSync(join(stale, "src"), { recursive: true });
    Deno.writeTextFileSync(join(stale, "src", "half"), "x");

    // two first runs at once: one good cache, nothing half-unpacked beside it
    const [a, b] = await Promise.all([
      runFile(file, ["help"], env, alone),
      runFile(file, ["help"], env, alone),
    ]);
    assert.deepEqual([a.code, b.code], [0, 0], a.text + b.text);
    assert.match(a.text, /asm serve/);
    const cache = join(home, ".cache", "asm");
    const entries = [...Deno.readDirSync(cache)].map((e) => e.name);
    assert.deepEqual(entries, [`${built.version}-${built.sha256.slice(0, 16)}`]);
    const unpacked = join(cache, entries[0]);
    const [sha, sum] = Deno.readTextFileSync(join(unpacked, ".unpacked")).split("\n");
    assert.equal(sha, built.sha256);
    assert.match(sum, /^\d+ \d+$/, "the unpacked tree's sum is recorded");
    assert.deepEqual(
      [...Deno.readDirSync(unpacked)].map((e) => e.name).sort(),
      [".checked", ".deno", ".unpacked", "deno", "src"],
      "the loser's tree was not left inside the winner's",
    );

    // a normal run execs straight from the cache: the tree is not summed again (its record is not rewritten)
    const checked = join(unpacked, ".checked");
    const checkedAt = Deno.statSync(checked).mtime!.getTime();
    const again = await runFile(file, ["help"], env, alone);
    assert.equal(again.code, 0, again.text);
    assert.match(again.text, /asm serve/);
    assert.doesNotMatch(again.text, /did not run/);
    assert.equal(Deno.statSync(checked).mtime!.getTime(), checkedAt, "nothing checked on a normal run");

    // a file changed after unpack is caught on the first run of the next boot: moved aside, never run, and
    // the real asm unpacked again runs instead
    Deno.writeTextFileSync(
      join(unpacked, "src", "main.ts"),
      'Deno.writeTextFileSync(`${Deno.env.get("HOME")}/planted-ran`, "x"); console.log("the planted tree ran");\n',
    );
    Deno.writeTextFileSync(checked, "a boot long gone\n");
    const planted = await runFile(file, ["help"], env, alone);
    assert.equal(planted.code, 0, planted.text);
    assert.match(planted.text, /asm serve/, "the real asm ran");
    assert.doesNotMatch(planted.text, /the planted tree ran/);
    assert.throws(() => Deno.statSync(join(home, "planted-ran")), Deno.errors.NotFound);
    assert.match(
      planted.text,
      /^asm: did not run \S+: it changed since it was unpacked \(its files sum to .*\)\. Moved it to \S+ \(look at it, then delete it\); unpacking again\.$/m,
    );

    // a copy cut short or damaged on the way is refused before anything is unpacked
    const damaged = join(root, "damaged");
    Deno.writeFileSync(damaged, Deno.readFileSync(file).subarray(0, built.bytes - 1000), { mode: 0o755 });
    const otherHome = join(root, "other-home");
    Deno.mkdirSync(otherHome);
    const refused = await runFile(damaged, ["help"], { ...env, HOME: otherHome }, alone);
    assert.equal(refused.code, 1);
    assert.match(
      refused.text,
      /^asm: this file is damaged \(its payload checksum is .*\); download it again$/m,
    );
    assert.deepEqual([...Deno.readDirSync(join(otherHome, ".cache", "asm"))], [], "nothing was unpacked");

    const server = new Deno.Command(file, {
      args: ["serve", "--port", "0"],
      env,
      clearEnv: true,
      cwd: alone,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      const asmHome = join(home, ".asm");
      let ids: string[] = [];
      let reasons: (string | null)[] = [];
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const running = runningServer(asmHome);
        if (running) {
          const health = await fetch(`http://127.0.0.1:${running.port}/api/health`);
          const body = await health.json();
          assert.equal(body.ok, true);
          // all: the session ran under /tmp, which the list hides as the harness's own folder
          const res = await fetch(`http://127.0.0.1:${running.port}/api/sessions?all=1`, {
            headers: { authorization: `Bearer ${running.token}` },
          });
          assert.equal(res.status, 200);
          const rows = (await res.json()).sessions as {
            agent_session_id: string;
            hidden_reason: string | null;
          }[];
          ids = rows.map((s) => s.agent_session_id);
          reasons = rows.map((s) => s.hidden_reason);
          if (ids.includes(CLAUDE_ID)) break;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.deepEqual(ids, [CLAUDE_ID], "the real agent's session is listed by the server the file runs");
      assert.deepEqual(reasons, ["harness folder"]);
    } finally {
      server.kill("SIGTERM");
      const status = await server.status;
      await server.stdout.cancel();
      await server.stderr.cancel();
      assert.equal(status.code, 0, "the server stops cleanly on SIGTERM");
    }

    // a server run leaves the tree as it was unpacked: the next boot's check passes and nothing is moved aside
    Deno.writeTextFileSync(checked, "a boot long gone\n");
    const reboot = await runFile(file, ["help"], env, alone);
    assert.equal(reboot.code, 0, reboot.text);
    assert.doesNotMatch(reboot.text, /did not run/);
    assert.notEqual(Deno.readTextFileSync(checked), "a boot long gone\n", "checked on this boot");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
