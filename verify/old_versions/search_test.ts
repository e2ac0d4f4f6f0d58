/**
 * The deep search over the older formats written as one JSON document (Gemini CLI's .json chats, the TypeScript
 * Codex CLI's session documents): the bounded scan and the index find their messages, and a document rewritten
 * whole is indexed again from its start, each message once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { importWorld } from "../../lib/history/_test_utils.ts";
import { buildSearchIndex } from "../../lib/search/index_build.ts";
import { searchWorld } from "../../lib/search/_test_utils.ts";
import { placeVersion } from "./_test_utils.ts";
import { CODEX_OLD_PROMPTS } from "./codex.ts";

const CHAT = ".gemini/tmp/project/chats/session-2026-12-01T19-31-a5a5ffff.json";

/** Each session with a match, by its agent, and how many matches it has. */
function found(answer: ReturnType<typeof searchWorld>): Record<string, number> {
  return Object.fromEntries(answer.sessions.map((s) => [`${s.agent} ${s.title}`, s.matches]));
}

Deno.test("the deep search finds the messages of one-document transcripts, scanned and indexed, and a rewrite once", async () => {
  await using w = importWorld();
  placeVersion(w, "gemini", "0.38.2");
  placeVersion(w, "codex", "0.1.2505172129");
  await w.run();

  const beta = searchWorld(w, { query: "second prompt beta", deep: true, all: true });
  const hello = searchWorld(w, { query: "one more thing", deep: true, all: true });
  console.log(`scanned: ${JSON.stringify(found(beta))} ${JSON.stringify(found(hello))}`);
  assert.equal(beta.indexed_files, 0, "nothing indexed yet: the scan answered");
  assert.deepEqual(Object.values(found(beta)), [2], "the prompt and the reply that repeats it, in the chat");
  assert.deepEqual(Object.keys(found(hello)).map((k) => k.split(" ")[0]), ["codex"]);
  assert.ok(hello.matches >= 1, `${CODEX_OLD_PROMPTS.resumed} found in the document`);

  await buildSearchIndex(w.ledger, { agents: w.agents });
  const indexed = searchWorld(w, { query: "second prompt beta", deep: true, all: true });
  assert.equal(indexed.scanned_files, 0, "the index answered");
  assert.deepEqual(found(indexed), found(beta), "the index finds what the scan found");
  assert.deepEqual(
    found(searchWorld(w, { query: "one more thing", deep: true, all: true })),
    found(hello),
  );

  // Gemini rewrites the chat whole with a new message: read again from its start, each message once
  const path = join(w.home, CHAT);
  const chat = JSON.parse(Deno.readTextFileSync(path));
  chat.messages.push({
    id: "added-after-the-rewrite",
    timestamp: "2026-12-01T19:40:00.000Z",
    type: "gemini",
    content: "a later reply about omega",
  });
  Deno.writeTextFileSync(path, JSON.stringify(chat, null, 2));
  await w.run();
  await buildSearchIndex(w.ledger, { agents: w.agents });
  const omega = searchWorld(w, { query: "omega", deep: true, all: true });
  const again = searchWorld(w, { query: "second prompt beta", deep: true, all: true });
  console.log(
    `after the rewrite: omega ${JSON.stringify(found(omega))}, beta ${JSON.stringify(found(again))}`,
  );
  assert.equal(omega.scanned_files + again.scanned_files, 0, "the index answered");
  assert.deepEqual(Object.values(found(omega)), [1]);
  assert.deepEqual(found(again), found(beta), "the earlier messages once, not twice");
});
