import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { hookEvent, writeSql } from "../../lib/ledger/_test_utils.ts";
import {
  asmIdOf,
  type DerivedSession,
  type ListedSession,
  writeDerived,
  writeListed,
} from "../../lib/ledger/mod.ts";
import { startServer } from "../../lib/server/mod.ts";
import { sessionsCli } from "../../lib/cli/history.ts";
import { DERIVING_TIP } from "../../lib/ui/words.ts";
import { ROUTES } from "../mod.ts";

const READING = asmIdOf("claude", "reading");
const NAMED = asmIdOf("claude", "named");
const LIVE = asmIdOf("claude", "live");
const DONE = asmIdOf("claude", "done");

/** What a cell shows: its text, leaving out the parts drawn but hidden (the Closeout cell holds all its states). */
function shownText(el: Element | null): string {
  if (el === null) return "(no cell)";
  const parts: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === 3) parts.push(node.textContent ?? "");
    else if (!(node as Element).hasAttribute?.("hidden")) node.childNodes.forEach(walk);
  };
  walk(el);
  return parts.join("").trim();
}

/** The Turns, Project and Closeout cells of a row of the front page, as shown. */
function derivedCells(document: Document, id: string): string[] {
  return ["turns", "project", "closeout"].map((f) =>
    shownText(document.querySelector(`tr[data-row-for="${id}"] [data-${f}-for="${id}"]`))
  );
}

Deno.test("a row being derived says deriving in Turns, Project and Closeout on the page, the API, the live payload, its own page and the CLI, never the number its column holds; a row still being read says so and is counted apart; derived, it shows its number", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-deriving-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    // a live session a hook made, whose transcript the first phase then listed; two ended sessions listed from
    // their transcripts' ends (one named, so its visibility does not wait for the whole file); one derived whole
    server.ledger.applyEvent(hookEvent({ agent_session_id: "live", cwd: "/home/user/web" }));
    writeListed(server.ledger, {
      sessions: [listed("reading"), listed("named", { name: "Named listing" }), listed("live")],
      files: [],
      now: "2026-12-01T00:00:00.000Z",
    });
    writeDerived(server.ledger, {
      sessions: [derivedRow("done")],
      files: [],
      now: "2026-12-01T00:00:00.000Z",
    });
    // numbers in the columns of the rows being derived (a hook's count, an earlier read): none may show
    assert.equal(
      writeSql(
        server.ledger,
        "UPDATE sessions SET turns = 5, project = 'web', closeout_state = 'open' WHERE derive_state = 'listed'",
      ),
      3,
    );

    const page = async (path: string) =>
      parseHTML(await (await fetch(`${server.url}${path}`)).text()).document as unknown as Document;
    let front = await page("/");
    for (const id of [READING, NAMED, LIVE]) {
      assert.deepEqual(derivedCells(front, id), ["deriving", "deriving", "deriving"], id);
      for (const f of ["turns", "project", "closeout"]) {
        const td = front.querySelector(`[data-${f}-for="${id}"]`)!;
        assert.equal(td.getAttribute("data-deriving"), "deriving", `${f} is drawn as a word, not a value`);
        assert.equal(td.getAttribute("title"), DERIVING_TIP, `${f} says why in its tooltip`);
      }
    }
    assert.deepEqual(derivedCells(front, DONE), ["3", "web", "closed out"], "a derived row shows its values");
    assert.equal(front.querySelector(`[data-turns-for="${DONE}"]`)?.getAttribute("data-deriving"), "");
    const reading = (d: Document) =>
      [...d.querySelectorAll("td.title[data-reading]")].map((td) => [
        td.getAttribute("data-title-for"),
        td.getAttribute("data-reading"),
      ]);
    // only the ended, unnamed row waits for its whole transcript to say whether it shows
    assert.deepEqual(reading(front), [[READING, "still being read"]]);
    assert.equal(front.querySelector(".filters .reading-count")?.textContent, "1 still being read");

    const api = async (path: string) => await (await server.api(path)).json();
    const rows = (await api("/api/sessions")).sessions as Record<string, unknown>[];
    const view = (id: string) => {
      const r = rows.find((r) => r.asm_id === id)!;
      return [r.deriving, r.still_being_read, r.turns, r.project, r.closeout];
    };
    assert.deepEqual(view(READING), [true, true, null, null, null]);
    assert.deepEqual(view(NAMED), [true, false, null, null, null]);
    assert.deepEqual(view(DONE), [false, false, 3, "web", "closed"]);
    const live = (await api("/api/live")).sessions as Record<string, unknown>[];
    assert.deepEqual(
      live.map((s) => [s.asm_id, s.deriving, s.turns, s.project, s.closeout]),
      [[LIVE, true, null, null, null]],
      "the poll writes deriving, not the column's 5",
    );

    const own = await page(`/sessions/${READING}`);
    assert.deepEqual(
      ["turns", "project", "closeout"].map((f) =>
        shownText(own.querySelector(`dd[data-${f}-for="${READING}"]`))
      ),
      ["deriving", "deriving", "deriving"],
      "the session's own page",
    );

    const lines: string[] = [];
    assert.equal(sessionsCli({ asmHome: home, out: { line: (t) => lines.push(t) } }), 0);
    const line = lines.find((l) => l.includes("(untitled)") || l.includes("Listed reading"))!;
    assert.match(line, / deriving {2}deriving {2}Listed reading \[still being read\]$/);
    assert.doesNotMatch(lines.join("\n"), /\b5 turns/, "no row prints the column's 5");

    // derived whole: the row takes its number and is no longer counted as still being read
    writeDerived(server.ledger, {
      sessions: [derivedRow("reading", { turns: 7, project: "api", closeout_state: "closed" })],
      files: [],
      now: "2026-12-01T00:01:00.000Z",
    });
    front = await page("/");
    assert.deepEqual(derivedCells(front, READING), ["7", "api", "closed out"]);
    assert.deepEqual(reading(front), []);
    assert.equal(front.querySelector(".reading-count"), null);
    const after = (await api("/api/sessions")).sessions as Record<string, unknown>[];
    assert.deepEqual(
      (({ deriving, still_being_read, turns }) => [deriving, still_being_read, turns])(
        after.find((r) => r.asm_id === READING)!,
      ),
      [false, false, 7],
    );
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

/** A session as the import's first phase lists it from its transcript's two ends. */
function listed(sid: string, over: Partial<ListedSession> = {}): ListedSession {
  return {
    asm_id: asmIdOf("claude", sid),
    agent: "claude",
    agent_session_id: sid,
    parent_asm_id: null,
    source: "interactive",
    thread_source: null,
    cwd: "/home/user/web",
    transcript_path: `/nowhere/${sid}.jsonl`,
    started_at: "2026-11-29T10:00:00.000Z",
    last_seen: "2026-11-29T11:00:00.000Z",
    first_message: "hello",
    name: null,
    title: `Listed ${sid}`,
    summary: null,
    model: null,
    context_tokens: null,
    context_window: null,
    agent_version: null,
    harness: false,
    ...over,
  };
}

/** A session as the import derives it whole. */
function derivedRow(sid: string, over: Partial<DerivedSession> = {}): DerivedSession {
  return {
    asm_id: asmIdOf("claude", sid),
    agent: "claude",
    agent_session_id: sid,
    parent_asm_id: null,
    cleared_from_asm_id: null,
    source: "interactive",
    thread_source: null,
    cwd: "/home/user/web",
    transcript_path: `/nowhere/${sid}.jsonl`,
    transcript_copy: null,
    started_at: "2026-11-29T10:00:00.000Z",
    last_seen: "2026-11-29T10:30:00.000Z",
    turns: 3,
    first_message: "hello",
    name: null,
    title: `Derived ${sid}`,
    summary: null,
    model: null,
    context_tokens: null,
    context_window: null,
    agent_version: null,
    closeout_state: "closed",
    project: "web",
    primary_folder: "/home/user/web",
    harness: false,
    days: {},
    folders: {},
    skills: {},
    ...over,
  };
}
