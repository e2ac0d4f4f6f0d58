import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, importWorld } from "../../lib/history/_test_utils.ts";
import { importDone, serverWorld } from "../../verify/server_world.ts";
import { limitsOf } from "./search.ts";

const CODEX_TUI =
  ".codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-01a2295f-0ad6-7852-afe2-883c2e6eae7a.jsonl";
const CLAUDE = "11111111-2222-4333-8444-555555555555";
const CLAUDE_FILE = `.claude/projects/-tmp-cc-proj-3/${CLAUDE}.jsonl`;

async function searchServer() {
  const s = await serverWorld(importWorld(), (w) => {
    w.place(fixture("codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl"), CODEX_TUI);
    w.place(
      fixture(`claude/p-mode/transcripts/plain-then-resume-then-continue.${CLAUDE}.jsonl`),
      CLAUDE_FILE,
    );
  });
  await s.post("/api/import").then((r) => r.body?.cancel());
  await importDone(s.get);
  return s;
}

Deno.test("GET /api/search: shallow by default, deep=1 reads transcripts, hidden rows only with all=1", async () => {
  await using s = await searchServer();
  // the server's import counts the fixtures' /tmp folders as harness folders: every row is hidden here
  assert.equal((await s.get("/api/search?q=hello%20from%20tmux&deep=1")).matches, 0);
  const shallow = await s.get("/api/search?q=hello%20from%20tmux&all=1");
  assert.equal(shallow.deep, false);
  assert.equal(shallow.matches, 1, "the title (also the first message: counted once)");
  const deep = await s.get("/api/search?q=hello%20from%20tmux&deep=1&all=1");
  assert.equal(deep.deep, true);
  assert.equal(deep.matches, 2, "the prompt and the reply quoting it");
  const sessions = deep.sessions as { agent: string; matches: number; snippets: { text: string }[] }[];
  assert.deepEqual(sessions.map((x) => [x.agent, x.matches]), [["codex", 2]]);
  assert.deepEqual(sessions[0].snippets.map((x) => x.text), [
    "Mock reply #6 to: hello from tmux",
    "hello from tmux",
  ]);
  assert.deepEqual(
    Object.keys(deep).sort(),
    [
      "bounded_by",
      "deep",
      "indexed_files",
      "matches",
      "query",
      "scanned_files",
      "sessions",
      "took_ms",
      "truncated_files",
    ],
  );
  assert.equal((await s.get("/api/search?q=third%20turn&deep=1&all=1")).matches, 2);
  const bounded = await s.get("/api/search?q=mock&deep=1&all=1&hits=2");
  assert.equal(bounded.bounded_by, "hits");
  assert.equal(bounded.matches, 2);
});

Deno.test("GET /api/search refuses a one-character query with a 400 and a sentence", async () => {
  await using s = await searchServer();
  const res = await s.server.api(`/api/search?q=a&deep=1`);
  assert.equal(res.status, 400);
  assert.match((await res.json()).error, /at least 2 characters/);
});

Deno.test("the server keeps answering /api/health while a deep search runs", async () => {
  await using s = await searchServer();
  // a long transcript that takes a while to read: the search must not hold up the event loop meanwhile
  const path = join(s.world.home, CLAUDE_FILE);
  const reply = Deno.readTextFileSync(path).split("\n").find((l) => l.includes('"type":"assistant"'));
  assert.ok(reply);
  const lines: string[] = [];
  for (let i = 0; i < 60_000; i++) lines.push(reply.replace(/"uuid":"[^"]+"/, `"uuid":"line-${i}"`));
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
  let finished = false;
  const searching = s.get("/api/search?q=never-said-anywhere&deep=1&all=1&bytes=83886080&seconds=30")
    .then((body) => {
      finished = true;
      return body;
    });
  let answeredWhileSearching = 0;
  while (!finished) {
    const health = await s.get("/api/health");
    assert.equal(health.ok, true);
    if (!finished) answeredWhileSearching++;
    await new Promise((r) => setTimeout(r, 10));
  }
  const body = await searching;
  assert.equal(body.matches, 0);
  assert.equal(body.bounded_by, null, "the whole file was read");
  assert.ok(answeredWhileSearching >= 2, `health answered ${answeredWhileSearching} times while searching`);
});

Deno.test("search bounds from the query string narrow the defaults and never widen past ten times", () => {
  assert.deepEqual(limitsOf(new URLSearchParams("seconds=1&hits=5&bytes=1000")), {
    seconds: 1,
    hits: 5,
    bytesPerFile: 1000,
  });
  assert.deepEqual(limitsOf(new URLSearchParams("seconds=9999&hits=-1&bytes=x")), { seconds: 50 });
});
