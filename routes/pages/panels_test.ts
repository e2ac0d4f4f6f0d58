import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { asmIdOf, type DerivedSession, writeDerived } from "../../lib/ledger/mod.ts";
import { startServer } from "../../lib/server/mod.ts";
import { ROUTES } from "../mod.ts";

Deno.test("the Projects page draws one tile per project whose primary counts add up to the visible sessions", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-panels-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    for (const [sid, cwd] of [["a", "/home/user/web"], ["b", "/home/user/web"], ["c", "/home/user/api"]]) {
      server.ledger.applyEvent(hookEvent({ agent_session_id: sid, cwd, session_name: `work ${sid}` }));
    }
    const res = await fetch(`${server.url}/projects`);
    assert.equal(res.status, 200);
    const { document } = parseHTML(await res.text());
    const tiles = [...document.querySelectorAll(".tile")].map((t) => [
      t.querySelector(".tile-name")?.textContent,
      Number(t.querySelector(".tile-counts strong")?.textContent),
    ]);
    assert.deepEqual(tiles, [["web", 2], ["api", 1]]);
    const sum = tiles.reduce((n, [, c]) => n + (c as number), 0);
    assert.equal(sum, server.ledger.listSessions().length);

    const activity = parseHTML(await (await fetch(`${server.url}/activity`)).text()).document;
    assert.match(activity.querySelector("main")?.textContent ?? "", /No turns recorded yet/);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("panels a person reads: the heat map's months, weekdays, legend and day tips; tiles that open their sessions; the hidden rows counted with why", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-panels-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    writeDerived(server.ledger, {
      sessions: [
        derivedRow("w1", { days: { "2026-11-29": 3, "2026-03-02": 1 } }),
        derivedRow("sub", { source: "subagent" }),
      ],
      files: [],
      now: "2026-12-01T00:00:00.000Z",
    });
    server.ledger.applyEvent(
      hookEvent({ agent_session_id: "sub", cwd: "/home/user/web", source: "subagent" }),
    );
    const activity = parseHTML(await (await fetch(`${server.url}/activity`)).text()).document;
    const year = activity.querySelector('[data-heat-for="claude-2026"]')!;
    assert.deepEqual(
      [...year.querySelectorAll("text[data-month]")].map((t) => t.textContent),
      ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    );
    assert.deepEqual([...year.querySelectorAll("text[data-weekday]")].map((t) => t.textContent), [
      "Mon",
      "Wed",
      "Fri",
    ]);
    assert.equal(
      year.querySelector('rect[data-day="2026-11-29"] title')?.textContent,
      "Sun 29 Nov 2026: 3 turns",
    );
    assert.match(
      activity.querySelector(".legend")?.textContent ?? "",
      /^0.*3 turns a day \(this agent's busiest\)$/,
    );

    const projects = parseHTML(await (await fetch(`${server.url}/projects`)).text()).document;
    assert.equal(projects.querySelector("a.tile")?.getAttribute("href"), "/?project=web#sessions");
    for (const page of [projects, activity]) {
      assert.ok(page.querySelector(".usage-bar [data-island=UsageRow]"), "the usage row on every tab");
    }

    const front = parseHTML(await (await fetch(`${server.url}/?project=web`)).text()).document;
    assert.equal(front.querySelector("a.hidden-rows")?.textContent, "1 hidden (1 sub-agent): show");
    assert.deepEqual(
      [...front.querySelectorAll("tbody tr")].length,
      1,
      "the list opens filtered by the project",
    );
    const all = parseHTML(await (await fetch(`${server.url}/?all=1`)).text()).document;
    assert.deepEqual(
      [...all.querySelectorAll("td.title[data-hidden]")].map((e) => e.getAttribute("data-hidden")),
      [
        "sub-agent",
      ],
    );
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

/** A session as the import derives it. */
function derivedRow(sid: string, over: Partial<DerivedSession>): DerivedSession {
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
    started_at: "2026-03-02T10:00:00.000Z",
    last_seen: "2026-11-29T10:00:00.000Z",
    turns: 4,
    first_message: "hello",
    name: null,
    title: `Work ${sid}`,
    summary: null,
    model: null,
    context_tokens: null,
    context_window: null,
    agent_version: null,
    closeout_state: null,
    project: "web",
    primary_folder: "/home/user/web",
    harness: false,
    days: {},
    folders: {},
    skills: {},
    ...over,
  };
}
