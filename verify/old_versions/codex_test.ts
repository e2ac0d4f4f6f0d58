/**
 * The committed sessions of Codex's older versions (written by codex.ts, never by hand), imported as they lie in a
 * HOME: every session is one row with the facts its files say. Regenerating the fixtures gives new ids and times:
 * the tables below are then rewritten from the new files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { importWorld } from "../../lib/history/_test_utils.ts";
import { sessionViews } from "../../lib/ledger/mod.ts";
import { OLD_FIXTURES } from "./mod.ts";
import { daysOf, pageOf, placeVersion, projectOnDisk } from "./_test_utils.ts";
import { CODEX_OLD_PROMPTS, PLAN } from "./codex.ts";

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
  first_message: string | null;
  model: string | null;
  context_tokens: number | null;
  cwd: string | null;
  agent_version: string | null;
}

const { first: FIRST, second: SECOND, tui: TUI } = CODEX_OLD_PROMPTS;
const REVIEW =
  "Review the current code changes (staged, unstaged, and untracked files) and provide prioritized " +
  "findings.";
const T = (s: string) => `2026-12-01T20:${s}Z`;
const project = (version: string) => `/tmp/asm-old/codex-${version}/project`;

/** A row whose prompts were all typed on the fixtures' one day; one prompt alone is "nothing happened". */
function row(o: Omit<Row, "days" | "hidden_reason"> & { hidden_reason?: string | null }): Row {
  return {
    ...o,
    days: o.turns === 0 ? {} : { "2026-12-01": o.turns },
    hidden_reason: o.hidden_reason !== undefined ? o.hidden_reason : o.turns <= 1 ? "nothing happened" : null,
  };
}

const EXPECTED: Record<string, Row[]> = {
  // one document per session, with one time (its last save): no folder, model, version or token counts in it
  "0.1.2505172129": [
    row({
      id: "344830e8-a3be-42e1-a82f-671391c394d5",
      title: FIRST,
      turns: 2,
      started_at: T("34:54.736"),
      last_seen: T("34:54.736"),
      source: null,
      first_message: FIRST,
      model: null,
      context_tokens: null,
      cwd: null,
      agent_version: null,
    }),
    row({
      id: "a31a8b08-f521-49b9-b86a-c2332f9f4bf6",
      title: SECOND,
      turns: 1,
      started_at: T("34:59.767"),
      last_seen: T("34:59.767"),
      source: null,
      first_message: SECOND,
      model: null,
      context_tokens: null,
      cwd: null,
      agent_version: null,
    }),
  ],
  // bare lines: one time per file (its head), the folder from the environment block, nothing says exec; the
  // resume (8241...) is a new rollout holding a copy of the first session, whose prompt counts again there
  "0.29.0": [
    row({
      id: "46929d8f-55c4-4b3e-bf35-5623f7003792",
      title: FIRST,
      turns: 1,
      started_at: T("35:05.699"),
      last_seen: T("35:05.699"),
      source: null,
      first_message: FIRST,
      model: null,
      context_tokens: null,
      cwd: project("0.29.0"),
      agent_version: null,
    }),
    row({
      id: "824193ad-2679-45cf-b2d1-54b73ff75d82",
      title: FIRST,
      turns: 2,
      started_at: T("35:06.029"),
      last_seen: T("35:06.029"),
      source: null,
      first_message: FIRST,
      model: null,
      context_tokens: null,
      cwd: project("0.29.0"),
      agent_version: null,
    }),
    row({
      id: "d40648dd-fe2b-4bcf-a9f2-ecd1b6b57db3",
      title: SECOND,
      turns: 1,
      started_at: T("35:05.830"),
      last_seen: T("35:05.830"),
      source: null,
      first_message: SECOND,
      model: null,
      context_tokens: null,
      cwd: project("0.29.0"),
      agent_version: null,
    }),
  ],
  // the envelope: times, model and token counts per line; exec resume appends to the first rollout; no source
  // yet (exec and the terminal UI both write originator codex_cli_rs), so nothing hides the exec runs
  "0.42.0": [
    row({
      id: "01a23351-80ed-70e1-9a20-e7124f816393",
      title: FIRST,
      turns: 2,
      started_at: T("35:09.165"),
      last_seen: T("35:09.702"),
      source: null,
      first_message: FIRST,
      model: "mock-model",
      context_tokens: 6685,
      cwd: project("0.42.0"),
      agent_version: "0.42.0",
    }),
    row({
      id: "01a23351-81ad-7811-8240-a314d9770ccd",
      title: SECOND,
      turns: 1,
      started_at: T("35:09.357"),
      last_seen: T("35:09.446"),
      source: null,
      first_message: SECOND,
      model: "mock-model",
      context_tokens: 6629,
      cwd: project("0.42.0"),
      agent_version: "0.42.0",
    }),
  ],
  // source: exec headless, the terminal UI's cli interactive, the review's {"subagent":"review"} a sub-agent
  // (no parent named yet); the review's own exec thread holds no typed prompt (its findings come back injected)
  "0.120.0": [
    row({
      id: "01a23351-8adf-7f62-8139-adbd16f9abb4",
      title: FIRST,
      turns: 2,
      started_at: T("35:11.779"),
      last_seen: T("35:19.595"),
      hidden_reason: "headless",
      source: "headless",
      first_message: FIRST,
      model: "mock-model",
      context_tokens: 11436,
      cwd: project("0.120.0"),
      agent_version: "0.120.0",
    }),
    row({
      id: "01a23351-9462-7e41-94cb-c8e7868ea6b6",
      title: TUI,
      turns: 2,
      started_at: T("35:14.154"),
      last_seen: T("35:16.373"),
      source: "interactive",
      first_message: TUI,
      model: "mock-model",
      context_tokens: 12601,
      cwd: project("0.120.0"),
      agent_version: "0.120.0",
    }),
    row({
      id: "01a23351-aa3f-7332-9421-5dccfec35115",
      // the thread index's title: the rollout has no typed prompt to take one from
      title: REVIEW,
      turns: 0,
      started_at: T("35:19.752"),
      last_seen: T("35:19.896"),
      hidden_reason: "headless",
      source: "headless",
      first_message: null,
      model: null,
      context_tokens: null,
      cwd: project("0.120.0"),
      agent_version: "0.120.0",
    }),
    row({
      id: "01a23351-aa62-7870-b92e-5154010f954d",
      title: REVIEW,
      turns: 1,
      started_at: T("35:19.793"),
      last_seen: T("35:19.872"),
      hidden_reason: "sub-agent",
      source: "subagent",
      first_message: REVIEW,
      model: "mock-model",
      context_tokens: 4504,
      cwd: project("0.120.0"),
      agent_version: "0.120.0",
    }),
  ],
};

/** Every session row of the world, as {@link Row}s, by session id. */
function rowsOf(ledger: Parameters<typeof sessionViews>[0]): Row[] {
  const views = new Map(sessionViews(ledger, { all: true }).map((v) => [v.asm_id, v]));
  return ledger.query(
    `SELECT asm_id, agent_session_id, source, first_message, model, context_tokens, started_at, last_seen, turns,
       cwd, agent_version FROM sessions ORDER BY agent_session_id`,
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
      first_message: r.first_message as string | null,
      model: r.model as string | null,
      context_tokens: r.context_tokens === null ? null : Number(r.context_tokens),
      cwd: r.cwd as string | null,
      agent_version: r.agent_version as string | null,
    };
  });
}

Deno.test("every pinned older Codex version has its fixtures and its expected rows", () => {
  const versions = PLAN.versions.map((v) => v.version);
  assert.deepEqual(Object.keys(EXPECTED), versions);
  for (const v of versions) assert.ok(Deno.statSync(join(OLD_FIXTURES, "codex", v, "home")).isDirectory);
});

for (const version of PLAN.versions.map((v) => v.version)) {
  Deno.test(`Codex ${version}'s sessions import as one row per session, with the facts their files say`, async () => {
    await using w = importWorld();
    using _project = projectOnDisk(project(version));
    placeVersion(w, "codex", version);
    const report = await w.run();
    // nothing to say about any file: no unknown record type, no unreadable line
    assert.deepEqual(w.logged, []);
    assert.equal(report.files_failed, 0);
    assert.deepEqual(rowsOf(w.ledger), EXPECTED[version]);
    assert.deepEqual(
      w.ledger.query("SELECT DISTINCT agent, parent_asm_id FROM sessions").map((r) => ({ ...r })),
      [{ agent: "codex", parent_asm_id: null }],
      "no version here names a sub-agent's parent",
    );
    // every row's one folder is the project the version ran in (the TypeScript CLI names none)
    const folders = w.ledger.query("SELECT DISTINCT folder FROM session_folders").map((r) => r.folder);
    assert.deepEqual(folders, version === PLAN.versions[0].version ? [] : [project(version)]);
  });
}

Deno.test("a TypeScript CLI session document shows its conversation on the session page, read whole", async () => {
  await using w = importWorld();
  placeVersion(w, "codex", PLAN.versions[0].version);
  await w.run();
  const page = await pageOf(w, "codex", "344830e8-a3be-42e1-a82f-671391c394d5");
  console.log(`the document's page: ${JSON.stringify(page.said.map((l) => l.slice(0, 70)))}`);
  // the prompts as typed, in order, each answered
  assert.deepEqual(page.prompts, [FIRST, CODEX_OLD_PROMPTS.resumed]);
  assert.ok(page.said.some((l) => l.startsWith("assistant: ")), "a reply is shown");
  assert.equal(page.note, null);
});
