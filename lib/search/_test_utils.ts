/**
 * Test helpers for search: the shared fixtures laid out in a temporary world the way each agent keeps them, and
 * a search run over a world's ledger on the calling thread (the Worker is tested on its own in mod_test.ts).
 * @module
 */
import { loadAgents } from "../agents/mod.ts";
import { fixture, type ImportWorld } from "../history/_test_utils.ts";
import { searchReader } from "../ledger/mod.ts";
import { classifiersOf, storesOf } from "./classifiers.ts";
import { runSearch, type SearchAnswer, type SearchDeps, type SearchRequest } from "./run.ts";
import { readTail } from "./scan.ts";

/** Session ids of the fixtures {@link placeSearchFixtures} lays out. */
export const FIXTURE_IDS = {
  claudeHeadless: "11111111-2222-4333-8444-555555555555",
  claudeInteractive: "9489399f-ac78-4316-81cd-2726c9579121",
  codexTui: "01a2295f-0ad6-7852-afe2-883c2e6eae7a",
  geminiInteractive: "c1da5980-46d6-46b3-8a93-b75d57566e2d",
  geminiHeadless: "03265f03-2613-42de-9360-1d2e196c0f07",
};

/** The Gemini interactive transcript's path under the world's home. */
export const GEMINI_INTERACTIVE = ".gemini/tmp/proj-b/chats/session-2026-11-29T22-22-c1da5980.jsonl";

/** Places one transcript of each agent's kinds (real files the agents wrote) in the world's home. */
export function placeSearchFixtures(w: ImportWorld): void {
  const claude = ".claude/projects";
  w.place(
    fixture(`claude/p-mode/transcripts/plain-then-resume-then-continue.${FIXTURE_IDS.claudeHeadless}.jsonl`),
    `${claude}/-tmp-cc-proj-3/${FIXTURE_IDS.claudeHeadless}.jsonl`,
  );
  w.place(
    fixture(
      `claude/interactive/transcripts/before-clear.chat-tool-skill-rename.${FIXTURE_IDS.claudeInteractive}.jsonl`,
    ),
    `${claude}/-tmp-cc-proj-5/${FIXTURE_IDS.claudeInteractive}.jsonl`,
  );
  w.place(
    fixture("codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl"),
    `.codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-${FIXTURE_IDS.codexTui}.jsonl`,
  );
  w.place(fixture("gemini/interactive/chats/session-2026-11-29T22-22-c1da5980.jsonl"), GEMINI_INTERACTIVE);
  w.write(".gemini/tmp/proj-b/.project_root", "/tmp/gmfx/proj-b");
  w.place(
    fixture("gemini/headless/chats/session-2026-11-29T22-22-03265f03.jsonl"),
    ".gemini/tmp/proj-a/chats/session-2026-11-29T22-22-03265f03.jsonl",
  );
  w.write(".gemini/tmp/proj-a/.project_root", "/tmp/gmfx/proj-a");
}

/** Runs a search over the world's ledger on this thread, with the real readers (or `deps` overrides). */
export function searchWorld(
  w: ImportWorld,
  request: SearchRequest,
  deps: Partial<SearchDeps> = {},
): SearchAnswer {
  const agents = loadAgents({ asmHome: w.asmHome, env: w.env });
  const byAgent = classifiersOf(agents);
  const stores = storesOf(agents, w.env);
  return runSearch(request, {
    reader: searchReader(w.ledger),
    classifierOf: (agent) => byAgent.get(agent) ?? null,
    readTail: (path, copy, maxBytes, agent) => readTail(path, copy, maxBytes, stores.get(agent) ?? []),
    now: () => performance.now(),
    ...deps,
  });
}
