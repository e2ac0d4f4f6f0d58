/**
 * The import over the files Gemini CLI's older versions wrote (verify/fixtures/old/gemini, made by gemini.ts
 * from the real old packages, offline): each version's tree is laid in a temporary home and imported, and each
 * session is one row with exactly what the files say. No old version is installed here: CI reads the committed
 * fixtures. Regenerating them makes new ids and times: the values below are then read again from the new files.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { type ImportWorld, importWorld } from "../../lib/history/_test_utils.ts";
import { sessionViews } from "../../lib/ledger/mod.ts";
import { pageOf, placeVersion } from "./_test_utils.ts";

/** One row as the test compares it. */
interface Row {
  id: string;
  title: string | null;
  first_message: string | null;
  summary: string | null;
  turns: number;
  started_at: string | null;
  last_seen: string | null;
  source: string | null;
  cwd: string | null;
  model: string | null;
  context_tokens: number | null;
  hidden_reason: string | null;
}

function rows(w: ImportWorld): Row[] {
  const hidden = new Map(sessionViews(w.ledger, { all: true }).map((v) => [v.asm_id, v]));
  return w.ledger.query(
    `SELECT asm_id, agent, agent_session_id AS id, first_message, summary, turns, started_at, last_seen, source,
      cwd, model, context_tokens FROM sessions ORDER BY started_at`,
  ).map((r) => {
    assert.equal(r.agent, "gemini");
    const view = hidden.get(r.asm_id as string);
    assert.ok(view, `a view of ${r.id}`);
    const { asm_id: _id, agent: _agent, ...rest } = r;
    return { ...rest, title: view.title, hidden_reason: view.hidden_reason } as unknown as Row;
  });
}

/** Imports a version's tree into the world and returns its rows, oldest first. */
async function imported(w: ImportWorld, version: string): Promise<Row[]> {
  placeVersion(w, "gemini", version);
  await w.run();
  assert.deepEqual(w.logged, [], "the old files read without a problem");
  return rows(w);
}

const SUMMARY =
  "Mock reply #3: Summarize the user's primary intent or g…cond prompt beta Summary (max 80 chars):";
const HASHED_082 = ".gemini/tmp/45d3ae065c9a75a9f3d06b5635f308eab78ac0d4609a4614fe6935e30f2168bc";

Deno.test("Gemini CLI 0.8.2 (.json chats in a hashed folder): one row per session, interactive known from logs.json", async () => {
  await using w = importWorld();
  const got = await imported(w, "0.8.2");
  assert.deepEqual(got, [
    {
      id: "c7d973fb-ea90-4a56-a45f-50bca3e7ac67",
      title: "first prompt alpha",
      first_message: "first prompt alpha",
      summary: null,
      turns: 1,
      started_at: "2026-12-01T19:30:19.260Z",
      last_seen: "2026-12-01T19:30:19.276Z",
      // -p leaves no mark in the file: not known; one prompt, ended, is what hides it
      source: null,
      cwd: null,
      model: "gemini-2.5-pro",
      context_tokens: 151,
      hidden_reason: "nothing happened",
    },
    {
      id: "095de617-2795-4e33-b645-0cd0944c3e47",
      title: "interactive prompt beta",
      first_message: "interactive prompt beta",
      summary: null,
      turns: 2,
      started_at: "2026-12-01T19:30:22.744Z",
      last_seen: "2026-12-01T19:30:23.395Z",
      source: "interactive",
      cwd: null,
      model: "gemini-2.5-pro",
      context_tokens: 187,
      hidden_reason: null,
    },
  ]);
});

Deno.test("Gemini CLI 0.26.0 (.json, --resume, a summary): the resumed session is one row titled by its summary; a /chat save checkpoint is none", async () => {
  await using w = importWorld();
  const got = await imported(w, "0.26.0");
  assert.deepEqual(got, [
    {
      id: "9bf3ecdc-b35c-4e71-be0d-a1ab56ac5ba1",
      title: SUMMARY,
      first_message: "first prompt alpha",
      summary: SUMMARY,
      turns: 2,
      started_at: "2026-12-01T19:30:44.162Z",
      last_seen: "2026-12-01T19:30:50.855Z",
      source: null,
      cwd: null,
      model: "gemini-2.5-flash",
      context_tokens: 240,
      hidden_reason: null,
    },
    {
      id: "356ff2fc-fcd8-4850-bfb4-44c30563d407",
      title: "USE_TOOL third prompt gamma",
      first_message: "USE_TOOL third prompt gamma",
      summary: null,
      turns: 1,
      started_at: "2026-12-01T19:30:54.321Z",
      last_seen: "2026-12-01T19:30:54.422Z",
      source: null,
      cwd: null,
      model: "gemini-2.5-flash",
      context_tokens: 328,
      hidden_reason: "nothing happened",
    },
    {
      id: "730011d2-b8f0-44f4-bc2f-f8e2cbdd9c49",
      title: "interactive prompt delta",
      first_message: "interactive prompt delta",
      summary: null,
      turns: 2,
      started_at: "2026-12-01T19:30:59.131Z",
      // the info note of /chat save is the last thing the file says
      last_seen: "2026-12-01T19:31:00.326Z",
      source: "interactive",
      cwd: null,
      model: "gemini-2.5-flash",
      context_tokens: 245,
      hidden_reason: null,
    },
  ]);
});

Deno.test("Gemini CLI 0.38.2 (the last .json version): folder from projects.json, one row per session", async () => {
  await using w = importWorld();
  const got = await imported(w, "0.38.2");
  const cwd = "/tmp/asm-old/gemini-0.38.2/project";
  assert.deepEqual(got, [
    {
      id: "a5a5ffff-e16b-41b0-a7de-8d61fb22dda1",
      title: SUMMARY,
      first_message: "first prompt alpha",
      summary: SUMMARY,
      turns: 2,
      started_at: "2026-12-01T19:31:07.078Z",
      last_seen: "2026-12-01T19:31:10.595Z",
      source: null,
      cwd,
      model: "gemini-3-flash-preview",
      context_tokens: 189,
      hidden_reason: null,
    },
    {
      id: "8c3f2633-2bc4-4332-aa64-5e3c2164fd24",
      title: "USE_TOOL third prompt gamma",
      first_message: "USE_TOOL third prompt gamma",
      summary: null,
      turns: 1,
      started_at: "2026-12-01T19:31:12.172Z",
      last_seen: "2026-12-01T19:31:12.293Z",
      source: null,
      cwd,
      model: "gemini-3-flash-preview",
      context_tokens: 259,
      hidden_reason: "nothing happened",
    },
    {
      id: "ed9bc085-2fb4-45f8-9bad-5648c9852a5e",
      title: "interactive prompt delta",
      first_message: "interactive prompt delta",
      summary: null,
      turns: 2,
      started_at: "2026-12-01T19:31:14.414Z",
      last_seen: "2026-12-01T19:31:16.042Z",
      source: "interactive",
      cwd,
      model: "gemini-3-flash-preview",
      context_tokens: 194,
      hidden_reason: null,
    },
  ]);
});

Deno.test("Gemini CLI 0.39.1 (the first JSONL): a session begun in 0.38.2 and resumed after the upgrade is one row from both files", async () => {
  await using w = importWorld();
  const got = await imported(w, "0.39.1");
  const cwd = "/tmp/asm-old/gemini-0.39.1/project";
  assert.deepEqual(got, [
    {
      id: "d99f292c-8cc6-46ce-92d0-4b97e7dbbe71",
      title: "prompt before the upgrade",
      first_message: "prompt before the upgrade",
      summary: null,
      turns: 2,
      started_at: "2026-12-01T19:31:23.034Z",
      last_seen: "2026-12-01T19:31:24.254Z",
      source: null,
      cwd,
      model: "gemini-3-flash-preview",
      context_tokens: 194,
      hidden_reason: null,
    },
    {
      id: "f4fdb9c7-db56-4c19-9275-92bce005ba75",
      title: "fresh prompt delta",
      first_message: "fresh prompt delta",
      summary: null,
      turns: 1,
      started_at: "2026-12-01T19:31:25.099Z",
      last_seen: "2026-12-01T19:31:25.141Z",
      source: null,
      cwd,
      model: "gemini-3-flash-preview",
      context_tokens: 157,
      hidden_reason: "nothing happened",
    },
  ]);
});

Deno.test("a .json chat rewritten whole is read again from its start, never on from an offset", async () => {
  await using w = importWorld();
  placeVersion(w, "gemini", "0.8.2");
  const rel = `${HASHED_082}/chats/session-2026-12-01T19-30-c7d973fb.json`;
  const first = await w.run();
  assert.deepEqual([first.files_read, first.files_resumed], [2, 0]);
  const again = await w.run();
  assert.deepEqual([again.files_unchanged, again.files_read], [2, 0], "unchanged files are not opened");
  // what the CLI does on the next prompt: the whole document written anew, longer, under the same name
  const path = join(w.home, rel);
  const chat = JSON.parse(Deno.readTextFileSync(path));
  chat.messages.push({
    id: "later-prompt",
    timestamp: "2026-12-02T08:00:00.000Z",
    type: "user",
    content: "a prompt the next day",
  });
  chat.lastUpdated = "2026-12-02T08:00:00.000Z";
  Deno.mkdirSync(dirname(path), { recursive: true });
  Deno.writeTextFileSync(path, JSON.stringify(chat, null, 2));
  const grown = await w.run();
  assert.deepEqual([grown.files_read, grown.files_resumed], [1, 0]);
  const row = rows(w).find((r) => r.id === "c7d973fb-ea90-4a56-a45f-50bca3e7ac67");
  assert.equal(row?.turns, 2, "the first prompt is not counted twice");
  assert.equal(row?.last_seen, "2026-12-02T08:00:00.000Z");
  assert.equal(row?.hidden_reason, null);
  assert.deepEqual(w.logged, []);
});

Deno.test("a .json chat shows its conversation on the session page, read whole", async () => {
  await using w = importWorld();
  await imported(w, "0.38.2");
  const page = await pageOf(w, "gemini", "a5a5ffff-e16b-41b0-a7de-8d61fb22dda1");
  console.log(`the chat's page: ${JSON.stringify(page.said.map((l) => l.slice(0, 70)))}`);
  assert.deepEqual(page.prompts, ["first prompt alpha", "second prompt beta"]);
  assert.ok(page.said.some((l) => l.startsWith("assistant: ")), "a reply is shown");
  assert.equal(page.note, null);
});
