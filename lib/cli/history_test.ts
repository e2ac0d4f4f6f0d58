import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../server/mod.ts";
import { sessionViews } from "../ledger/mod.ts";
import { claudePromptLine, fixture, importWorld } from "../history/_test_utils.ts";
import { importCli, sessionsCli } from "./history.ts";
import { ROUTES } from "../../routes/mod.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function asm(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--node-modules-dir=manual", MAIN, ...args],
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  return { code: r.code, out: new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr) };
}

/** Temporary homes holding a few real transcripts, and the environment that points at them. */
function world(): { root: string; env: Record<string, string> } {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-import-cli-" }));
  const home = join(root, "home");
  const place = (src: string, rel: string) => {
    const path = join(home, rel);
    Deno.mkdirSync(join(path, ".."), { recursive: true });
    Deno.copyFileSync(fixture(src), path);
  };
  place(
    "claude/interactive/transcripts/before-clear.chat-tool-skill-rename.9489399f-ac78-4316-81cd-2726c9579121.jsonl",
    ".claude/projects/-tmp-cc-proj-5/9489399f-ac78-4316-81cd-2726c9579121.jsonl",
  );
  place(
    "codex/rollouts/exec-plain-chat.rollout.jsonl",
    ".codex/sessions/2026/11/29/rollout-2026-11-29T22-12-08-01a2295d-92ca-73a0-ac65-5a6372a1a905.jsonl",
  );
  return {
    root,
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: home,
      CODEX_HOME: join(home, ".codex"),
      GEMINI_CLI_HOME: home,
      ASM_HOME: join(root, "asm"),
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
      NO_COLOR: "1",
    },
  };
}

const FIELDS = [
  "asm_id",
  "agent",
  "agent_session_id",
  "status",
  "title",
  "project",
  "turns",
  "context_tokens",
  "context_window",
  "closeout",
  "skills",
  "hidden",
  "hidden_reason",
  "unsure_reason",
  "started_at",
  "last_seen",
  "deriving",
  "still_being_read",
];

Deno.test("./asm import shows its progress and takes the writer lock itself; ./asm sessions --json prints the rows", async () => {
  const { root, env } = world();
  try {
    const first = await asm(["import"], env);
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /import: 2\/2 files, [\d.]+\/[\d.]+ MB, [\d.-]+ MB\/s, done in/);
    assert.match(first.out, /imported 2 file\(s\) .*2 new session\(s\)/);
    const all = await asm(["sessions", "--json", "--all"], env);
    const rows = JSON.parse(all.out);
    assert.equal(rows.length, 2);
    for (const row of rows) assert.deepEqual(Object.keys(row), FIELDS);
    // the fixtures were recorded under /tmp: a harness folder for the real CLI (and the exec run is headless)
    assert.deepEqual(
      rows.map((r: { title: string; hidden_reason: string }) => [r.title, r.hidden_reason]).sort(),
      [["My Custom Title", "harness folder"], ["hello there", "headless"]],
    );
    assert.deepEqual(JSON.parse((await asm(["sessions", "--json"], env)).out), []);
    const again = await asm(["import"], env);
    assert.match(again.out, /imported 0 file\(s\).*2 unchanged file\(s\) skipped/);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("./asm import while a server runs asks that server to import and follows its progress", async () => {
  const { root, env } = world();
  const server = await startServer({ asmHome: env.ASM_HOME, port: 0, env, services: [], routes: ROUTES });
  try {
    const r = await asm(["import"], env);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, new RegExp(`a server is running \\(port ${server.port}\\); it does the import`));
    assert.match(r.out, /import: 2\/2 files/);
    assert.match(r.out, /imported 2 file\(s\)/);
    assert.equal(
      sessionViews(server.ledger, { all: true }).length,
      2,
      "the server wrote them: it is the one writer",
    );
    // a reader needs no lock: sessions works beside the running server
    const listed = await asm(["sessions", "--json", "--all"], env);
    assert.equal(JSON.parse(listed.out).length, 2);
  } finally {
    await server.close();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("./asm sessions prints a transcript's escape sequences and line breaks as harmless text, one line a session", async () => {
  await using w = importWorld();
  const sid = "22222222-3333-4444-8555-666666666666";
  w.write(
    `.claude/projects/-work-p/${sid}.jsonl`,
    claudePromptLine({
      sessionId: sid,
      text: "fix it\u001b[2J\u001b]0;owned\u0007\nsecond line\rover",
      ts: "2026-11-30T10:00:00.000Z",
      cwd: "/work/p",
    }) + "\n",
  );
  await w.run();
  // (the world's ledger stays open: read-only readers share a ledger with its writer)
  const lines: string[] = [];
  assert.equal(sessionsCli({ asmHome: w.asmHome, all: true, out: { line: (t) => lines.push(t) } }), 0);
  assert.equal(lines.length, 1, JSON.stringify(lines));
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(lines[0], /[\u0000-\u001f\u007f-\u009f]/);
  assert.match(lines[0], /fix it\ufffd\[2J\ufffd\]0;owned\ufffd second line over/);
});

Deno.test("./asm import whose ledger file is deleted while it runs says so in one sentence, without a stack trace", async () => {
  const { root, env } = world();
  try {
    const lines: string[] = [];
    const ledgerPath = join(env.ASM_HOME, "ledger.sqlite");
    const code = await importCli({
      asmHome: env.ASM_HOME,
      env,
      out: {
        line: (text: string) => {
          // the first progress line comes before any write: the ledger is opened, and now it is gone
          if (lines.length === 0) {
            for (const suffix of ["", "-wal", "-shm"]) {
              Deno.removeSync(ledgerPath + suffix, { recursive: true });
            }
          }
          lines.push(text);
        },
      },
    });
    assert.equal(code, 1);
    const last = lines.at(-1) ?? "";
    console.log(`asserting the last line says the ledger was deleted and where the details are: ${last}`);
    assert.match(
      last,
      /^asm import: the import stopped: the ledger file .*ledger\.sqlite was deleted while asm had it open/,
    );
    assert.ok(last.includes(join(env.ASM_HOME, "server.log")), last);
    assert.doesNotMatch(lines.join("\n"), /\n\s+at /, "no stack trace");
    // the details (with the stack) are in the log
    const log = Deno.readTextFileSync(join(env.ASM_HOME, "server.log"));
    assert.match(log, /"what":"import failed".*"stack":"LedgerUnwritableError/);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
