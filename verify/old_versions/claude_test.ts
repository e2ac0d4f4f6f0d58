/**
 * The committed transcripts of Claude Code's older versions (written by claude.ts, never by hand), imported as
 * they lie in a HOME: every session is one row with the facts its files say. Regenerating the fixtures gives new
 * ids and times: the tables below are then rewritten from the new files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { importWorld } from "../../lib/history/_test_utils.ts";
import { asmIdOf, sessionViews } from "../../lib/ledger/mod.ts";
import { OLD_FIXTURES } from "./mod.ts";
import { daysOf, placeVersion } from "./_test_utils.ts";
import { CLAUDE_OLD_PROMPTS, PLAN } from "./claude.ts";

/** What one session's row says. */
interface Row {
  id: string;
  title: string;
  turns: number;
  /** UTC day -> turns typed that day */
  days: Record<string, number>;
  started_at: string;
  last_seen: string;
  hidden_reason: string | null;
  source: string | null;
  /** the parent's session id (its row may not exist: an empty file's session) */
  parent: string | null;
  first_message: string;
  summary: string | null;
  model: string | null;
  context_tokens: number | null;
}

/** A typed -p session: shown unless it is one prompt long (the hidden rule's "nothing happened"). */
function main(o: Omit<Row, "hidden_reason" | "source" | "parent" | "days">): Row {
  return {
    ...o,
    days: { "2026-12-01": o.turns },
    // no entrypoint in these versions' lines: nothing says -p, so the source stays unknown and the row shown
    source: null,
    hidden_reason: o.turns <= 1 ? "nothing happened" : null,
    parent: null,
  };
}

/** A sub-agent's own file (2.0.x: beside the sessions), nested under the session its lines name. */
function sub(
  id: string,
  parent: string,
  [started_at, last_seen]: [string, string],
  model: string | null,
  first = "Warmup",
): Row {
  return {
    id: `agent-${id}`,
    title: first,
    turns: 0,
    days: {},
    started_at,
    last_seen,
    hidden_reason: "sub-agent",
    source: "subagent",
    parent,
    first_message: first,
    summary: null,
    model,
    // a warm-up that got no answer has no usage
    context_tokens: model === null ? null : first === "Warmup" ? 3067 : 3072,
  };
}

const T = (s: string) => `2026-12-01T19:35:${s}Z`;
const { first: FIRST, task: TASK } = CLAUDE_OLD_PROMPTS;

const EXPECTED: Record<string, Row[]> = {
  // a resume and a continue each copy the conversation into a new session (the copied prompts count again
  // there); each start titles the previous session with a summary line at the top of its own new file
  "0.2.126": [
    main({
      id: "2a68d357-1100-405f-96e8-07abb9775348",
      title: "Mock title of three prompts",
      turns: 3,
      started_at: T("17.784"),
      last_seen: T("17.797"),
      first_message: FIRST,
      summary: "Mock title of three prompts",
      model: "claude-3-7-sonnet-20250219",
      context_tokens: 3143,
    }),
    main({
      id: "628021de-5f6b-4a1f-8edc-be0bfd337890",
      title: "Mock title of two prompts",
      turns: 2,
      started_at: T("17.253"),
      last_seen: T("17.265"),
      first_message: FIRST,
      summary: "Mock title of two prompts",
      model: "claude-3-7-sonnet-20250219",
      context_tokens: 3109,
    }),
    main({
      id: "7a87e56f-1115-4c3a-8b20-3b1c8937eb9a",
      title: "Mock title of one prompt",
      turns: 1,
      started_at: T("16.648"),
      last_seen: T("16.670"),
      first_message: FIRST,
      summary: "Mock title of one prompt",
      model: "claude-3-7-sonnet-20250219",
      context_tokens: 3067,
    }),
    // the sub-agent's lines are inside this file (isSidechain): not the session's turns, times or model
    main({
      id: "89a77fd9-5a41-43cf-a56d-82956a68f5b2",
      title: TASK,
      turns: 1,
      started_at: T("18.320"),
      last_seen: T("18.352"),
      first_message: TASK,
      summary: null,
      model: "claude-3-7-sonnet-20250219",
      context_tokens: 3288,
    }),
  ],
  // --resume and --continue append to the first session's file; the title of its earlier leaf went into a file
  // holding nothing else (no row), the title of its last leaf into the next session's file
  "1.0.128": [
    main({
      id: "172ea3f9-53f2-48ae-b37a-bea1175857b0",
      title: TASK,
      turns: 1,
      started_at: T("22.327"),
      last_seen: T("22.396"),
      first_message: TASK,
      summary: null,
      model: "claude-sonnet-4-20250514",
      context_tokens: 3355,
    }),
    main({
      id: "51ac71cf-ffc6-42ca-a51c-3731ce8d863e",
      title: "Mock title of three prompts",
      turns: 3,
      started_at: T("20.065"),
      last_seen: T("21.620"),
      first_message: FIRST,
      summary: "Mock title of three prompts",
      model: "claude-sonnet-4-20250514",
      context_tokens: 3323,
    }),
  ],
  // -p writes no summary line; every start runs warm-up sub-agents into agent-<id>.jsonl files, named by the
  // session id of that moment (two are the ids of empty files a resume or continue left: no row of their own)
  "2.0.77": [
    main({
      id: "497d6f52-0a30-47e8-99ad-7f206f4aec6e",
      title: FIRST,
      turns: 3,
      started_at: T("24.145"),
      last_seen: T("26.092"),
      first_message: FIRST,
      summary: null,
      model: "claude-sonnet-4-5-20250929",
      context_tokens: 3155,
    }),
    main({
      id: "62b35c6a-3a3c-41c6-a06a-d483cb9129da",
      title: TASK,
      turns: 1,
      started_at: T("26.904"),
      last_seen: T("27.040"),
      first_message: TASK,
      summary: null,
      model: "claude-sonnet-4-5-20250929",
      context_tokens: 3205,
    }),
    sub(
      "a0f5ba0",
      "1cd769ee-b65d-4c29-8ca2-2cc7b0bc7525",
      [T("25.058"), T("25.124")],
      "claude-haiku-4-5-20251001",
    ),
    sub(
      "a323e8c",
      "1cd769ee-b65d-4c29-8ca2-2cc7b0bc7525",
      [T("25.069"), T("25.116")],
      "claude-sonnet-4-5-20250929",
    ),
    sub(
      "a5350db",
      "e138196b-68e4-49a1-9916-57703fc6e476",
      [T("25.982"), T("26.018")],
      "claude-sonnet-4-5-20250929",
    ),
    sub("a812423", "497d6f52-0a30-47e8-99ad-7f206f4aec6e", [T("24.125"), T("24.125")], null),
    sub(
      "a9f3735",
      "62b35c6a-3a3c-41c6-a06a-d483cb9129da",
      [T("26.892"), T("26.980")],
      "claude-sonnet-4-5-20250929",
    ),
    sub(
      "aa30d03",
      "e138196b-68e4-49a1-9916-57703fc6e476",
      [T("25.978"), T("26.039")],
      "claude-sonnet-4-5-20250929",
    ),
    sub(
      "aaafea1",
      "62b35c6a-3a3c-41c6-a06a-d483cb9129da",
      [T("26.896"), T("26.960")],
      "claude-sonnet-4-5-20250929",
    ),
    sub(
      "ab2d6b5",
      "1cd769ee-b65d-4c29-8ca2-2cc7b0bc7525",
      [T("25.065"), T("25.134")],
      "claude-sonnet-4-5-20250929",
    ),
    sub(
      "ab45fe4",
      "62b35c6a-3a3c-41c6-a06a-d483cb9129da",
      [T("26.886"), T("26.975")],
      "claude-haiku-4-5-20251001",
    ),
    sub("ac7089b", "497d6f52-0a30-47e8-99ad-7f206f4aec6e", [T("24.133"), T("24.133")], null),
    sub(
      "acd6720",
      "e138196b-68e4-49a1-9916-57703fc6e476",
      [T("25.971"), T("26.029")],
      "claude-haiku-4-5-20251001",
    ),
    sub("ad5ce35", "497d6f52-0a30-47e8-99ad-7f206f4aec6e", [T("24.138"), T("24.138")], null),
    sub(
      "af78ba0",
      "62b35c6a-3a3c-41c6-a06a-d483cb9129da",
      [T("26.991"), T("27.011")],
      "claude-sonnet-4-5-20250929",
      "Say hello from the sub-agent",
    ),
  ],
};

/** Every session row of the world, as {@link Row}s, by session id. */
function rowsOf(ledger: Parameters<typeof sessionViews>[0]): Row[] {
  const views = new Map(sessionViews(ledger, { all: true }).map((v) => [v.asm_id, v]));
  return ledger.query(
    `SELECT asm_id, agent, agent_session_id, parent_asm_id, source, first_message, summary, model, context_tokens,
       started_at, last_seen, turns FROM sessions ORDER BY agent_session_id`,
  ).map((r) => {
    const asmId = String(r.asm_id);
    const view = views.get(asmId)!;
    const days = daysOf(ledger, asmId);
    return {
      id: String(r.agent_session_id),
      title: view.title!,
      turns: Number(r.turns),
      days,
      started_at: String(r.started_at),
      last_seen: String(r.last_seen),
      hidden_reason: view.hidden_reason,
      source: r.source as string | null,
      parent: r.parent_asm_id as string | null,
      first_message: String(r.first_message),
      summary: r.summary as string | null,
      model: r.model as string | null,
      context_tokens: r.context_tokens === null ? null : Number(r.context_tokens),
    };
  });
}

Deno.test("every pinned older Claude Code version has its fixtures and its expected rows", () => {
  const versions = PLAN.versions.map((v) => v.version);
  assert.deepEqual(Object.keys(EXPECTED), versions);
  for (const v of versions) assert.ok(Deno.statSync(join(OLD_FIXTURES, "claude", v, "home")).isDirectory);
});

for (const version of PLAN.versions.map((v) => v.version)) {
  Deno.test(`Claude Code ${version}'s transcripts import as one row per session, with the facts they say`, async () => {
    await using w = importWorld();
    placeVersion(w, "claude", version);
    const report = await w.run();
    // nothing to say about any line: no unknown record type, no unreadable line
    assert.deepEqual(w.logged, []);
    assert.equal(report.files_failed, 0);
    const expected = EXPECTED[version].map((r) => ({
      ...r,
      parent: r.parent === null ? null : asmIdOf("claude", r.parent),
    })).sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(rowsOf(w.ledger), expected);
    const cwd = `/tmp/asm-old/claude-${version}/project`;
    assert.deepEqual(
      w.ledger.query("SELECT DISTINCT agent, cwd, agent_version FROM sessions").map((r) => ({ ...r })),
      [{ agent: "claude", cwd, agent_version: version }],
    );
  });
}
