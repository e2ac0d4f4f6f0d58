/**
 * `./asm import` over one home holding every older version's files at once (as a person who upgraded each agent
 * over the years has them), plus lines of types no version wrote: no crash, a row for the sessions, and one log
 * line per unknown line type per file, never one per line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { OLD_FIXTURES } from "./mod.ts";
import { filesOf, versionHome } from "./_test_utils.ts";

const ASM = new URL("../../asm", import.meta.url).pathname;

Deno.test("./asm import over a home mixing every version's files: no crash, one log line per unknown type per file", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-mixed-" }));
  const home = join(root, "home");
  const asmHome = join(root, "asm");
  try {
    let copied = 0;
    for (const agent of ["claude", "codex", "gemini"]) {
      // oldest first: a side file both versions keep (an index, a registry) ends as the newest version left it
      const versions = [...Deno.readDirSync(join(OLD_FIXTURES, agent))].map((e) => e.name)
        .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      for (const version of versions) {
        const tree = versionHome(agent, version);
        for (const rel of filesOf(tree)) {
          Deno.mkdirSync(join(home, rel, ".."), { recursive: true });
          Deno.copyFileSync(join(tree, rel), join(home, rel));
          copied++;
        }
      }
    }
    assert.ok(copied > 40, `every version's files are in the home (${copied})`);
    // lines of types no version wrote, in a Claude transcript and a Codex rollout of their own
    const claude = join(home, ".claude", "projects", "-future", "0f0f0f0f-0000-4000-8000-000000000001.jsonl");
    Deno.mkdirSync(join(claude, ".."), { recursive: true });
    const future = (type: string, n: number) =>
      Array.from(
        { length: n },
        () => JSON.stringify({ type, sessionId: "0f0f0f0f-0000-4000-8000-000000000001" }),
      );
    Deno.writeTextFileSync(
      claude,
      [
        JSON.stringify({
          type: "user",
          sessionId: "0f0f0f0f-0000-4000-8000-000000000001",
          cwd: "/home/person/future",
          timestamp: "2026-11-30T10:00:00.000Z",
          message: { role: "user", content: "a prompt from the future" },
        }),
        ...future("hologram", 3),
        ...future("telepathy", 2),
      ].join("\n") + "\n",
    );
    const out = await new Deno.Command(ASM, {
      args: ["import"],
      env: {
        HOME: home,
        ASM_HOME: asmHome,
        CODEX_HOME: join(home, ".codex"),
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
      },
      clearEnv: true,
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    const log = Deno.readTextFileSync(join(asmHome, "server.log")).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const unknown = log.filter((l) => l.what === "transcript line type not known");
    assert.deepEqual(unknown.map((l) => `${l.path}: ${l.error}`).sort(), [
      `${claude}: 2 line(s) of type "telepathy" were skipped: this reader does not know the type`,
      `${claude}: 3 line(s) of type "hologram" were skipped: this reader does not know the type`,
    ]);
    assert.deepEqual(
      log.filter((l) => /unreadable|failed/.test(String(l.what))),
      [],
      "nothing failed to read",
    );
    const sessions = await new Deno.Command(ASM, {
      args: ["sessions", "--json", "--all"],
      env: {
        HOME: home,
        ASM_HOME: asmHome,
        CODEX_HOME: join(home, ".codex"),
        PATH: Deno.env.get("PATH") ?? "",
      },
      clearEnv: true,
      stdin: "null",
    }).output();
    const rows = JSON.parse(new TextDecoder().decode(sessions.stdout)) as { agent: string }[];
    const perAgent = Object.fromEntries(
      ["claude", "codex", "gemini"].map((a) => [a, rows.filter((r) => r.agent === a).length]),
    );
    for (const agent of ["claude", "codex", "gemini"]) {
      assert.ok(perAgent[agent] > 0, `${agent} rows: ${JSON.stringify(perAgent)}`);
    }
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
