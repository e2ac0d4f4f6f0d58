import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAgents } from "../agents/mod.ts";
import { importWorld } from "../history/_test_utils.ts";
import { asmIdOf } from "../ledger/mod.ts";
import { buildSearchIndex } from "./index_build.ts";
import { RefusedQuery, type SearchAnswer } from "./run.ts";
import { FIXTURE_IDS, GEMINI_INTERACTIVE, placeSearchFixtures, searchWorld } from "./_test_utils.ts";

function session(answer: SearchAnswer, agent: string, sid: string) {
  return answer.sessions.find((s) => s.asm_id === asmIdOf(agent, sid));
}

Deno.test("a typed message is found in each agent's format, with a snippet around the match", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const cases: [string, string, string, string][] = [
    ["claude", FIXTURE_IDS.claudeInteractive, "hello interactive", "hello interactive SLOW:3000"],
    ["codex", FIXTURE_IDS.codexTui, "hello from tmux", "hello from tmux"],
    ["gemini", FIXTURE_IDS.geminiInteractive, "hooks zeta", "interactive hooks zeta"],
  ];
  for (const [agent, sid, query, snippet] of cases) {
    const answer = searchWorld(w, { query, deep: true, all: true });
    const found = session(answer, agent, sid);
    assert.ok(found, `${agent}: "${query}" is found`);
    assert.ok(
      found.snippets.some((s) => s.where === "prompt" && s.text === snippet),
      `${agent}: ${JSON.stringify(found.snippets)}`,
    );
  }
});

Deno.test("JSON keys never match: only message text is searched", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const raw = [GEMINI_INTERACTIVE, `.claude/projects/-tmp-cc-proj-5/${FIXTURE_IDS.claudeInteractive}.jsonl`]
    .map((rel) => Deno.readTextFileSync(join(w.home, rel))).join("\n");
  for (const key of ["sessionId", "parentUuid", "promptSource", "displayContent"]) {
    assert.ok(raw.includes(key), `${key} is in the raw files, so the test can fail`);
    const answer = searchWorld(w, { query: key, deep: true, all: true });
    assert.equal(answer.matches, 0, `${key}: ${JSON.stringify(answer.sessions)}`);
  }
});

Deno.test("matches are counted, not sessions: a word twice in one session counts 2", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  // the prompt "interactive hooks zeta" and the reply "MOCK-REPLY #12 ... to:  hooks zeta ..."
  const zeta = searchWorld(w, { query: "zeta", deep: true, all: true });
  assert.equal(zeta.sessions.length, 1);
  assert.equal(zeta.matches, 2);
  assert.equal(zeta.sessions[0].matches, 2);
  // "hi-from-interactive": the prompt, the tool's output and the reply quoting it
  const hi = searchWorld(w, { query: "HI-FROM-interactive", deep: true, all: true });
  assert.equal(hi.matches, 3);
  assert.deepEqual(hi.sessions[0].snippets.map((s) => s.where), ["assistant", "tool", "prompt"]);
});

Deno.test("a record Gemini re-appended under the same id counts once", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  const path = join(w.home, GEMINI_INTERACTIVE);
  const reply = Deno.readTextFileSync(path).split("\n").find((l) => l.includes('"type":"gemini"'));
  assert.ok(reply);
  Deno.writeTextFileSync(path, `${reply}\n`, { append: true });
  await w.run();
  const scanned = searchWorld(w, { query: "MOCK-REPLY #12", deep: true, all: true });
  assert.equal(scanned.scanned_files > 0, true);
  assert.equal(scanned.matches, 1);
  await buildSearchIndex(w.ledger, { agents: w.agents });
  const indexed = searchWorld(w, { query: "MOCK-REPLY #12", deep: true, all: true });
  assert.equal(indexed.scanned_files, 0);
  assert.equal(indexed.matches, 1);
});

Deno.test("the index and the bounded scan give the same matches for the same files", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const queries = ["hello", "mock reply", "zeta", "hi-from-interactive", "tool", "TOOLCALL", "#1"];
  const before = queries.map((query) => searchWorld(w, { query, deep: true, all: true }));
  const report = await buildSearchIndex(w.ledger, { agents: w.agents });
  assert.equal(report.problems, 0);
  const after = queries.map((query) => searchWorld(w, { query, deep: true, all: true }));
  for (let i = 0; i < queries.length; i++) {
    assert.equal(before[i].indexed_files, 0);
    assert.equal(after[i].scanned_files, 0);
    assert.equal(after[i].indexed_files, before[i].scanned_files);
    assert.deepEqual(after[i].sessions, before[i].sessions, queries[i]);
    assert.ok(before[i].matches > 0, `${queries[i]} matches something`);
  }
});

Deno.test("each of the three bounds bites and the answer says which", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const free = searchWorld(w, { query: "mock", deep: true, all: true });
  assert.equal(free.bounded_by, null);
  assert.ok(free.matches > 3);

  const hits = searchWorld(w, { query: "mock", deep: true, all: true, limits: { hits: 3 } });
  assert.equal(hits.bounded_by, "hits");
  assert.equal(hits.matches, 3);

  const bytes = searchWorld(w, { query: "mock", deep: true, all: true, limits: { bytesPerFile: 2000 } });
  assert.equal(bytes.bounded_by, "bytes");
  assert.ok(bytes.truncated_files > 0);
  assert.ok(bytes.sessions.some((s) => s.truncated));
  assert.ok(bytes.matches < free.matches, "the oldest part of long files was not read");

  let clock = 0; // a clock that moves a second every time it is read
  const time = searchWorld(w, { query: "mock", deep: true, all: true, limits: { seconds: 2 } }, {
    now: () => (clock += 1000),
  });
  assert.equal(time.bounded_by, "time");
  assert.ok(time.matches < free.matches);
});

Deno.test("a one-character query is refused with a sentence", async () => {
  await using w = importWorld();
  for (const query of ["a", " é ", ""]) {
    assert.throws(() => searchWorld(w, { query, deep: true, all: true }), (err: Error) => {
      assert.ok(err instanceof RefusedQuery);
      assert.match(err.message, /at least 2 characters/);
      return true;
    });
  }
  assert.equal(searchWorld(w, { query: "ab", deep: false, all: true }).matches, 0);
});

Deno.test("a Gemini transcript the agent deleted is searched through its copy", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  Deno.removeSync(join(w.home, GEMINI_INTERACTIVE));
  const answer = searchWorld(w, { query: "hooks zeta", deep: true, all: true });
  const found = session(answer, "gemini", FIXTURE_IDS.geminiInteractive);
  assert.ok(found, "found through the copy");
  assert.equal(found.matches, 2);
  // and the index, built after the original vanished, reads the copy too
  await buildSearchIndex(w.ledger, { agents: loadAgents({ asmHome: w.asmHome, env: w.env }) });
  const indexed = searchWorld(w, { query: "hooks zeta", deep: true, all: true });
  assert.equal(indexed.scanned_files, 0);
  assert.equal(session(indexed, "gemini", FIXTURE_IDS.geminiInteractive)?.matches, 2);
});

Deno.test("hidden sessions are searched only with all, and sessions come newest first", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  // the -p session is headless: hidden
  const visible = searchWorld(w, { query: "hello", deep: true, all: false });
  assert.equal(session(visible, "claude", FIXTURE_IDS.claudeHeadless), undefined);
  const all = searchWorld(w, { query: "hello", deep: true, all: true });
  assert.ok(session(all, "claude", FIXTURE_IDS.claudeHeadless));
  const seen = all.sessions.map((s) => s.last_seen ?? "");
  assert.deepEqual(seen, [...seen].sort().reverse());
});

Deno.test("a shallow search reads titles, first messages and folders, counting matches", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const answer = searchWorld(w, { query: "proj-b", deep: false, all: true });
  const found = session(answer, "gemini", FIXTURE_IDS.geminiInteractive);
  assert.ok(found, JSON.stringify(answer));
  assert.ok(found.snippets.some((s) => s.where === "cwd" || s.where === "project"));
  // this session's title is the name the person gave; its first message is still searched
  const first = searchWorld(w, { query: "slow:3000", deep: false, all: true });
  assert.deepEqual(first.sessions.map((s) => [s.title, s.matches, s.snippets.map((x) => x.where)]), [
    ["My Custom Title", 1, ["first_message"]],
  ]);
  assert.equal(first.deep, false);
  // message text deep inside a transcript is not a shallow hit
  assert.equal(searchWorld(w, { query: "hi-from-interactive", deep: false, all: true }).matches, 0);
});
