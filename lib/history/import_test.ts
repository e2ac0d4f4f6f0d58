import assert from "node:assert/strict";
import { join } from "node:path";
import { asmIdOf, sessionViews } from "../ledger/mod.ts";
import { hookEvent } from "../ledger/_test_utils.ts";
import { denoIo } from "./io.ts";
import {
  CLAUDE_AFTER_CLEAR,
  CLAUDE_AGENT_PARENT,
  CLAUDE_BEFORE_CLEAR,
  CLAUDE_PLAIN,
  CODEX,
  fixture,
  type ImportWorld,
  importWorld,
  ledgerDigest,
  placeFixtures,
} from "./_test_utils.ts";
import { transcriptBytes } from "./copies.ts";
import type { TranscriptIo } from "../derive/mod.ts";

function row(w: ImportWorld, agent: string, sid: string) {
  const found = sessionViews(w.ledger, { all: true }).find((s) => s.asm_id === asmIdOf(agent, sid));
  assert.ok(found, `a row for ${agent}:${sid}`);
  return found;
}

function column(w: ImportWorld, agent: string, sid: string, col: string): unknown {
  return w.ledger.query(`SELECT ${col} AS v FROM sessions WHERE asm_id = ?`, asmIdOf(agent, sid))[0]?.v;
}

Deno.test("the import makes one row per session on disk, per agent, each hidden or shown for its reason", async () => {
  await using w = importWorld();
  placeFixtures(w);
  const report = await w.run();
  assert.equal(report.files_seen, 15);
  assert.equal(report.files_read, 15);
  assert.equal(report.sessions_inserted, 15);
  const rows = sessionViews(w.ledger, { all: true });
  const perAgent = Object.fromEntries(
    ["claude", "codex", "gemini"].map((a) => [a, rows.filter((r) => r.agent === a).length]),
  );
  assert.deepEqual(perAgent, { claude: 5, codex: 6, gemini: 4 });
  assert.ok(rows.every((r) => r.status === "ended"), "the import never makes a session live");

  // the resumed -p file is one session, headless
  const plain = row(w, "claude", CLAUDE_PLAIN);
  assert.equal(plain.turns, 3);
  assert.equal(plain.hidden_reason, "headless");
  assert.equal(plain.closeout, "open");
  // the sub-agent is hidden under its parent
  const sub = row(w, "claude", `${CLAUDE_AGENT_PARENT}/agent-ac5a87ca59462ada7`);
  assert.equal(sub.hidden_reason, "sub-agent");
  assert.equal(
    column(w, "claude", `${CLAUDE_AGENT_PARENT}/agent-ac5a87ca59462ada7`, "parent_asm_id"),
    asmIdOf("claude", CLAUDE_AGENT_PARENT),
  );
  // the /clear pair: two rows, the new one linked to the one it replaced
  const before = row(w, "claude", CLAUDE_BEFORE_CLEAR);
  const after = row(w, "claude", CLAUDE_AFTER_CLEAR);
  assert.equal(column(w, "claude", CLAUDE_AFTER_CLEAR, "cleared_from_asm_id"), before.asm_id);
  assert.equal(before.title, "My Custom Title");
  assert.deepEqual(before.skills, ["mock-skill"]);
  assert.equal(before.hidden, false);
  assert.equal(after.turns, 1);
  assert.equal(
    column(w, "claude", CLAUDE_BEFORE_CLEAR, "name"),
    "My Custom Title",
    "a /rename is a name the person gave",
  );
  // Codex: exec hidden as headless, the TUI thread visible with its thread title, the never-prompted one hidden
  assert.equal(row(w, "codex", CODEX.exec).hidden_reason, "headless");
  const tui = row(w, "codex", CODEX.tui);
  assert.equal(tui.hidden, false);
  assert.equal(tui.title, "hello from tmux");
  assert.equal(tui.turns, 2);
  assert.equal(
    tui.closeout,
    "open",
    "Codex records a skill's run: read whole, its closeout skill did not run",
  );
  assert.equal(row(w, "codex", CODEX.neverPrompted).hidden_reason, "nothing happened");
  assert.equal(row(w, "codex", CODEX.execResumed).turns, 3);
  // Gemini: no file says a session ran headless, so a -p session is "not known" (null) and only its one prompt
  // hides it; the interactive ones are known from logs.json
  assert.equal(column(w, "gemini", "03265f03-2613-42de-9360-1d2e196c0f07", "source"), null);
  assert.equal(row(w, "gemini", "03265f03-2613-42de-9360-1d2e196c0f07").hidden_reason, "nothing happened");
  assert.equal(column(w, "gemini", "c1da5980-46d6-46b3-8a93-b75d57566e2d", "source"), "interactive");
  assert.equal(row(w, "gemini", "c1da5980-46d6-46b3-8a93-b75d57566e2d").hidden_reason, "nothing happened");
  assert.equal(
    column(w, "gemini", "c1da5980-46d6-46b3-8a93-b75d57566e2d", "summary"),
    "MOCK-REPLY #15 (gemini-3.5-flash-lite) to: t>BEFORE-AGENT-MARKER</hook_context> Summary (max 80 chars):",
  );
  assert.deepEqual(w.logged, [], "good files log nothing");
});

/** Appends each harness's own closeout marker (docs/agents/skills.md) to one Codex and one Gemini CLI session. */
function recordCloseoutRuns(w: ImportWorld): void {
  const at = (rel: string, line: Record<string, unknown>) =>
    w.write(rel, Deno.readTextFileSync(join(w.home, rel)) + JSON.stringify(line) + "\n");
  at(`.codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-${CODEX.tui}.jsonl`, {
    timestamp: "2026-11-29T22:14:09.000Z",
    type: "response_item",
    payload: {
      type: "message",
      role: "user",
      content: [{
        type: "input_text",
        text: "<skill>\n<name>closeout</name>\n<path>/x/SKILL.md</path>\n</skill>",
      }],
      internal_chat_message_metadata_passthrough: {
        content_item_kinds: ["skills.selected_skill_instructions"],
      },
    },
  });
  const activation = (name: string, status: string) => ({
    id: `gemini-${name}`,
    timestamp: "2026-11-29T22:22:50.000Z",
    type: "gemini",
    content: "",
    toolCalls: [{ id: `activate_skill__${name}`, name: "activate_skill", args: { name }, status }],
  });
  at(".gemini/tmp/proj-b/chats/session-2026-11-29T22-22-c1da5980.jsonl", activation("closeout", "success"));
  // the other Gemini session asked for it, but the CLI could not load it: no run
  at(".gemini/tmp/proj-b/chats/session-2026-11-29T22-23-4966ac10.jsonl", activation("closeout", "error"));
}

/** The closeout of every Codex and Gemini CLI row, by asm id. */
function codexGeminiCloseouts(w: ImportWorld): Record<string, string | null> {
  return Object.fromEntries(
    sessionViews(w.ledger, { all: true }).filter((r) => r.agent !== "claude").map((
      r,
    ) => [r.asm_id, r.closeout]),
  );
}

/** What {@link codexGeminiCloseouts} reads after {@link recordCloseoutRuns}: two closed, the other eight open. */
function closedAndOpen(closeouts: Record<string, unknown>): Record<string, string> {
  const closed = [asmIdOf("codex", CODEX.tui), asmIdOf("gemini", "c1da5980-46d6-46b3-8a93-b75d57566e2d")];
  assert.equal(Object.keys(closeouts).length, 10);
  return Object.fromEntries(
    Object.keys(closeouts).map((id) => [id, closed.includes(id) ? "closed" : "open"]),
  );
}

Deno.test("under the shipped agents.toml, a Codex or Gemini CLI session whose transcript records the closeout skill's run reads closed, the others open", async () => {
  await using w = importWorld();
  placeFixtures(w);
  recordCloseoutRuns(w);
  await w.run();
  const closeouts = codexGeminiCloseouts(w);
  assert.deepEqual(
    closeouts,
    closedAndOpen(closeouts),
    "read whole, every other session is open: never null",
  );
});

Deno.test("rows read under another closeout skill are settled from the skills they record, without reading a file again", async () => {
  await using w = importWorld();
  placeFixtures(w);
  recordCloseoutRuns(w);
  // as an older asm shipped them: no closeout skill for Codex and Gemini CLI
  const before = w.agents.map((a) => a.name === "claude" ? a : { ...a, closeout_skill: "" });
  await w.run({ agents: before });
  const unknown = codexGeminiCloseouts(w);
  assert.deepEqual(Object.values(unknown), Array(10).fill(null));
  const claudeBefore = sessionViews(w.ledger, { all: true }).filter((r) => r.agent === "claude");

  const opened: string[] = [];
  const report = await w.run({ io: countingIo(opened) });
  assert.deepEqual([opened, report.files_read], [[], 0], "no file read again");
  const closeouts = codexGeminiCloseouts(w);
  assert.deepEqual(closeouts, closedAndOpen(closeouts));
  assert.deepEqual(w.logged, [{ what: "closeout settled", agents: ["codex", "gemini"], rows: 10 }]);
  assert.deepEqual(
    sessionViews(w.ledger, { all: true }).filter((r) => r.agent === "claude"),
    claudeBefore,
    "Claude Code's setting did not change: its rows are as they were",
  );
  // once settled, an import with the same setting writes nothing
  const digest = ledgerDigest(w.ledger);
  await w.run();
  assert.equal(ledgerDigest(w.ledger), digest);
  // and back: nobody can say again
  await w.run({ agents: before });
  assert.deepEqual(codexGeminiCloseouts(w), unknown);
});

function countingIo(opened: string[]): TranscriptIo {
  return { ...denoIo, open: (path) => (opened.push(path), denoIo.open(path)) };
}

Deno.test("a second import of unchanged files opens none of them and writes nothing", async () => {
  await using w = importWorld();
  placeFixtures(w);
  await w.run();
  const digest = ledgerDigest(w.ledger);
  const opened: string[] = [];
  const again = await w.run({ io: countingIo(opened) });
  assert.deepEqual(opened, []);
  assert.equal(again.files_unchanged, 15);
  assert.equal(again.files_read, 0);
  assert.equal(ledgerDigest(w.ledger), digest);
});

Deno.test("a transcript that grew is read on from its offset and ends with the facts of a whole read", async () => {
  await using w = importWorld();
  const rel = `.claude/projects/-tmp-cc-proj-5/${CLAUDE_AFTER_CLEAR}.jsonl`;
  const grown = Deno.readFileSync(
    fixture(`claude/interactive/transcripts/after-clear-then-interactive-resume.${CLAUDE_AFTER_CLEAR}.jsonl`),
  );
  const first = Deno.readFileSync(
    fixture(`claude/interactive/transcripts/after-clear.${CLAUDE_AFTER_CLEAR}.jsonl`),
  );
  // the resumed file starts with the first one, byte for byte: the agent only appended
  assert.deepEqual(grown.subarray(0, first.length), first);
  w.write(rel, first);
  await w.run();
  assert.equal(row(w, "claude", CLAUDE_AFTER_CLEAR).turns, 1);
  w.write(rel, grown);
  const opened: string[] = [];
  const report = await w.run({ io: countingIo(opened) });
  assert.equal(report.files_resumed, 1);
  assert.equal(report.bytes_read, grown.length - first.length, "only the new bytes were read");
  const resumed = { ...row(w, "claude", CLAUDE_AFTER_CLEAR) };

  await using whole = importWorld();
  whole.write(rel, grown);
  await whole.run();
  const full = row(whole, "claude", CLAUDE_AFTER_CLEAR);
  assert.equal(resumed.turns, 2);
  assert.deepEqual(resumed, full);
});

Deno.test("a row a hook made keeps its status and its name; the import fills the derived fields", async () => {
  await using w = importWorld();
  placeFixtures(w);
  const start = hookEvent({
    agent: "claude",
    agent_session_id: CLAUDE_BEFORE_CLEAR,
    asm_id: asmIdOf("claude", CLAUDE_BEFORE_CLEAR),
    cwd: "/tmp/cc proj 5",
    session_name: "launched as Fix the tests",
    ts: "2026-11-29T22:15:20.000Z",
  });
  w.ledger.applyEvent(start);
  await w.run();
  const s = row(w, "claude", CLAUDE_BEFORE_CLEAR);
  assert.equal(s.status, "live");
  assert.equal(column(w, "claude", CLAUDE_BEFORE_CLEAR, "name"), "launched as Fix the tests");
  assert.equal(s.title, "launched as Fix the tests");
  assert.equal(s.turns, 4);
  assert.equal(
    s.started_at,
    "2026-11-29T22:15:20.000Z",
    "the earlier of the hook's and the transcript's start",
  );
  assert.equal(w.ledger.runs(s.asm_id).length, 1, "the hook's run is untouched");
});

Deno.test("Gemini transcripts are kept as compressed copies, and a session whose file the agent deleted stays", async () => {
  await using w = importWorld();
  placeFixtures(w);
  await w.run();
  const sid = "03265f03-2613-42de-9360-1d2e196c0f07";
  const copy = column(w, "gemini", sid, "transcript_copy") as string;
  const original = column(w, "gemini", sid, "transcript_path") as string;
  assert.equal(
    copy,
    `${
      join(w.asmHome, "copies", "copies.sqlite")
    }#gemini/tmp/proj-a/chats/session-2026-11-29T22-22-03265f03.jsonl`,
  );
  const bytes = Deno.readFileSync(original);
  Deno.removeSync(original);
  assert.deepEqual(transcriptBytes(original, copy), bytes, "the copy reads back as the original");
  await w.run();
  assert.equal(row(w, "gemini", sid).turns, 1, "the row stays with what was derived");
  assert.equal(
    column(w, "claude", CLAUDE_PLAIN, "transcript_copy"),
    null,
    "Claude is not marked keep_copies",
  );
});

Deno.test("a session files under the project it worked on, not the folder its window opened in", async () => {
  await using w = importWorld();
  const work = join(w.root, "work");
  for (const p of ["alpha/.git", "beta/.git", "beta/src"]) Deno.mkdirSync(join(work, p), { recursive: true });
  const sid = "aaaaaaaa-0000-4000-8000-000000000001";
  const line = (o: Record<string, unknown>) =>
    JSON.stringify({ sessionId: sid, cwd: join(work, "alpha"), ...o });
  const edit = (file: string, i: number) =>
    line({
      type: "assistant",
      timestamp: `2026-11-29T10:00:0${i}.000Z`,
      message: {
        role: "assistant",
        model: "m",
        content: [{ type: "tool_use", name: "Edit", input: { file_path: file } }],
      },
    });
  w.write(
    `.claude/projects/-alpha/${sid}.jsonl`,
    [
      line({
        type: "user",
        promptSource: "typed",
        timestamp: "2026-11-29T10:00:00.000Z",
        entrypoint: "cli",
        message: { role: "user", content: "work on beta" },
      }),
      edit(join(work, "beta", "src", "a.ts"), 1),
      edit(join(work, "beta", "src", "b.ts"), 2),
      line({
        type: "user",
        promptSource: "typed",
        timestamp: "2026-11-29T10:00:03.000Z",
        message: { role: "user", content: "thanks" },
      }),
    ].join("\n") + "\n",
  );
  await w.run();
  const folders = w.ledger.query("SELECT folder, score FROM session_folders ORDER BY folder");
  assert.deepEqual(folders.map((r) => [r.folder, r.score]), [[join(work, "alpha"), 1], [
    join(work, "beta"),
    2,
  ]]);
  assert.equal(column(w, "claude", sid, "primary_folder"), join(work, "beta"));
  assert.equal(column(w, "claude", sid, "project"), "beta");
});
