import assert from "node:assert/strict";
import { join } from "node:path";
import { asmIdOf, bindCard } from "../../lib/ledger/mod.ts";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { bootId, identityOf } from "../../lib/procs/mod.ts";
import { type RunningServer, startServer } from "../../lib/server/mod.ts";
import { actionCli } from "../../lib/cli/actions.ts";
import { testTmux } from "../../lib/launch/_test_utils.ts";
import { standInHome } from "../../lib/reconcile/_test_utils.ts";
import { ROUTES } from "../mod.ts";

const BOARD = [
  "# Sprint",
  "## SPRINT PLAN ^asm-plan",
  "- Plan it #webapp #typist ^c-plan01",
  "  - the prompt's first line",
  "  - and its second",
  "## IN PROCESS ^asm-process",
  "- Fix login #webapp #typist ^c-live01",
  "- Fix logout #webapp #typist ^c-live02",
  "- Fix signup #webapp #typist ^c-live03",
  "## COMPLETE ^asm-complete",
  "",
].join("\n");

function world() {
  const { root, asmHome, folder, env: home } = standInHome("asm-sprint-route-test-");
  Deno.writeTextFileSync(
    join(asmHome, "config.toml"),
    `mode = "testing"\n[board]\nfolders = { webapp = "${folder}" }\n`,
  );
  const boardFile = join(asmHome, "board.testing.md");
  Deno.writeTextFileSync(boardFile, BOARD);
  const tmux = testTmux();
  const env = { ...home, ASM_TMUX_SOCKET: tmux.socketPath };
  const server: RunningServer = startServer({ asmHome, port: 0, env, routes: ROUTES, services: [] });
  const processes: Deno.ChildProcess[] = [];
  let n = 0;
  return {
    root,
    asmHome,
    env,
    folder,
    boardFile,
    server,
    tmux,
    /** A live session on a `sleep` process, bound to `cardId`; its asm id. */
    session(cardId: string | null, cwd = folder): string {
      const child = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" }).spawn();
      processes.push(child);
      const sid = `s-${++n}`;
      server.ledger.applyEvent(hookEvent({
        agent: "typist",
        agent_session_id: sid,
        cwd,
        agent_pid: child.pid,
        agent_proc_start: identityOf(child.pid)!.procStart,
        boot_id: bootId(),
        ts: new Date().toISOString(),
      }));
      const asmId = asmIdOf("typist", sid);
      if (cardId) bindCard(server.ledger, { cardId, asmId, origin: "start", at: "2026-11-29T22:00:00.000Z" });
      return asmId;
    },
    get: async (path: string) => await (await server.api(path)).json(),
    async post(path: string, body: string, headers: Record<string, string> = {}) {
      const res = await server.api(path, { method: "POST", body, headers });
      return { status: res.status, body: await res.json() };
    },
    async [Symbol.asyncDispose]() {
      await server.close();
      for (const p of processes) {
        try {
          p.kill("SIGKILL");
        } catch { /* gone */ }
        await p.status;
      }
      await tmux[Symbol.asyncDispose]();
      Deno.removeSync(root, { recursive: true });
    },
  };
}

/** The list a card is in, as the board file says. */
function listOf(file: string, cardId: string): string {
  let list = "";
  for (const line of Deno.readTextFileSync(file).split("\n")) {
    if (line.startsWith("## ")) list = line;
    if (line.endsWith(`^${cardId}`)) return list;
  }
  return "(not on the board)";
}

Deno.test("GET /api/sprint: the lists with each card's facts and refusals, the sessions not on the plan, the agents", async () => {
  await using w = world();
  const live = w.session("c-live01");
  // outside the temporary folders (a harness folder's sessions are hidden from the list, and so from the page)
  const unnamed = w.session(null, "/nowhere/webapp");
  const sprint = await w.get("/api/sprint");
  assert.deepEqual(Object.keys(sprint), ["board", "digest", "not_on_plan", "agents"]);
  assert.deepEqual(
    [sprint.board.backend, sprint.board.location, sprint.board.mode, sprint.board.problem],
    ["markdown", w.boardFile, "testing", null],
  );
  assert.deepEqual(sprint.board.lists.map((l: { role: string; id: string }) => [l.role, l.id]), [
    ["plan", "asm-plan"],
    ["process", "asm-process"],
    ["complete", "asm-complete"],
  ]);
  const [planned] = sprint.board.lists[0].cards;
  assert.deepEqual(planned, {
    id: "c-plan01",
    title: "Plan it",
    project: "webapp",
    agent: "typist",
    dropped: false,
    tags: ["webapp", "typist"],
    prompt: ["the prompt's first line", "and its second"],
    asm_id: null,
    status: null,
    unsure_reason: null,
    claimed: false,
    refusals: {
      start: null,
      resume: "this card never had a session; START it",
      continue: "this card never had a session; START it",
      done: null,
      end: "this card has no session to end",
    },
  });
  const running = sprint.board.lists[1].cards[0];
  assert.deepEqual([running.id, running.asm_id, running.status], ["c-live01", live, "live"]);
  assert.equal(running.refusals.end, null);
  assert.equal(running.refusals.done, "its session is still open; END it first");
  assert.deepEqual(sprint.not_on_plan, [
    { asm_id: unnamed, agent: "typist", title: null, reason: "not known to be interactive" },
  ]);
  assert.deepEqual(sprint.agents.find((a: { name: string }) => a.name === "typist"), {
    name: "typist",
    display: "Typist",
    tag: "typist",
  });
  const liveBody = await w.get("/api/live");
  assert.equal(liveBody.board_digest, sprint.digest, "/api/live carries the same digest");
  // a hand edit shows after a fresh read, and moves the digest
  Deno.writeTextFileSync(w.boardFile, BOARD.replace("Plan it", "Plan it well"));
  assert.equal((await w.get("/api/sprint")).board.lists[0].cards[0].title, "Plan it", "the memo");
  const fresh = await w.get("/api/sprint?fresh=1");
  assert.equal(fresh.board.lists[0].cards[0].title, "Plan it well");
  assert.notEqual(fresh.digest, sprint.digest);
  assert.equal((await w.get("/api/live")).board_digest, fresh.digest);
});

Deno.test("a card request carries ids and names only, at most 1 KiB, with the token and the page's Origin", async () => {
  await using w = world();
  const refused = await w.post(
    "/api/sprint/c-plan01/start",
    JSON.stringify({ agent: "typist", prompt: "rm -rf /" }),
  );
  assert.equal(refused.status, 400);
  assert.match(refused.body.error, /carries agent, model, bypass_hook_trust; "prompt" is not one of them/);
  assert.equal((await w.post("/api/sprint/c-plan01/start", JSON.stringify({ agent: "a b" }))).status, 400);
  assert.equal((await w.post("/api/sprint/c-plan01/done", JSON.stringify({ agent: "typist" }))).status, 400);
  assert.equal(
    (await w.post("/api/sprint/c-plan01/start", JSON.stringify({ model: "x".repeat(2000) }))).status,
    413,
  );
  assert.equal((await w.post("/api/sprint/c%20x/start", "{}")).status, 400, "a card is named by its id");
  assert.deepEqual(await w.post("/api/sprint/c-nope01/start", "{}"), {
    status: 404,
    body: { error: "there is no card c-nope01 on the board" },
  });
  assert.deepEqual(await w.post("/api/sprint/c-live01/start", "{}"), {
    status: 409,
    body: { error: "this card is already in IN PROCESS" },
  });
  const foreign = await w.post("/api/sprint/c-plan01/done", "{}", { origin: "http://evil.example" });
  assert.equal(foreign.status, 403);
  const anonymous = await fetch(`${w.server.url}/api/sprint`);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  assert.equal(listOf(w.boardFile, "c-plan01"), "## SPRINT PLAN ^asm-plan", "nothing moved");
});

Deno.test("START from the API launches the card's prompt in a window and moves the card; DONE files a finished card", async () => {
  await using w = world();
  const started = await w.post("/api/sprint/c-plan01/start", "{}");
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.deepEqual([started.body.card, started.body.launch.agent, started.body.launch.sprint_node], [
    "c-plan01",
    "typist",
    "c-plan01",
  ]);
  assert.equal(
    Deno.readTextFileSync(started.body.launch.prompt_path),
    "the prompt's first line\nand its second",
  );
  assert.equal(listOf(w.boardFile, "c-plan01"), "## IN PROCESS ^asm-process");
  assert.equal((await w.get("/api/sprint")).board.lists[1].cards[0].claimed, true);
  const done = await w.post("/api/sprint/c-live03/done", "");
  assert.deepEqual(done, { status: 200, body: { card: "c-live03", list: "complete" } });
  assert.equal(listOf(w.boardFile, "c-live03"), "## COMPLETE ^asm-complete");
});

Deno.test("END through every door files the session's card to COMPLETE: the card, the sessions route, the CLI", async () => {
  await using w = world();
  const viaCard = w.session("c-live01");
  const viaRow = w.session("c-live02");
  const viaCli = w.session("c-live03");
  const card = await w.post("/api/sprint/c-live01/end", "");
  assert.equal(card.status, 200, JSON.stringify(card.body));
  assert.deepEqual([card.body.asm_id, card.body.status, card.body.card], [viaCard, "killed", {
    id: "c-live01",
    filed: true,
    problem: null,
  }]);
  const row = await w.post(`/api/sessions/${viaRow}/end`, "");
  assert.deepEqual([row.status, row.body.card?.filed], [200, true]);
  const lines: string[] = [];
  const code = await actionCli({ verb: "end", session: viaCli.slice(0, 12) }, {
    env: w.env,
    print: (l) => lines.push(l),
  });
  assert.equal(code, 0, lines.join("\n"));
  assert.deepEqual(lines, [
    `ended ${viaCli}: it was in no window asm can see`,
    "  its card c-live03 went to COMPLETE",
  ]);
  for (const id of ["c-live01", "c-live02", "c-live03"]) {
    assert.equal(listOf(w.boardFile, id), "## COMPLETE ^asm-complete", id);
  }
  for (const asmId of [viaCard, viaRow, viaCli]) {
    assert.equal(w.server.ledger.session(asmId)?.status, "killed");
  }
  // a session with no card ends as it always did
  const lone = w.session(null);
  const plain = await w.post(`/api/sessions/${lone}/end`, "");
  assert.deepEqual([plain.status, plain.body.card], [200, null]);
});

Deno.test("the board in Workflowy through config.toml: read unescaped once; a failed write is a 503 with the sentence, then a stale board", async () => {
  const { startFakeWorkflowy } = await import("../../verify/fakes/workflowy.ts");
  await using fake = await startFakeWorkflowy();
  const lists = {
    plan: fake.addList("PLAN"),
    process: fake.addList("PROCESS"),
    complete: fake.addList("COMPLETE"),
  };
  const card = fake.typeByHand(lists.plan, "<b>Fix</b> A &amp; B #webapp #typist", {
    children: ["go &lt;now&gt;"],
  });
  const { root, asmHome, folder, env: home } = standInHome("asm-sprint-workflowy-test-");
  Deno.writeTextFileSync(join(asmHome, "workflowy.key"), fake.key, { mode: 0o600 });
  // the person's real lists, which this testing run must never touch (testing mode refuses a Workflowy board
  // whose guard names none)
  const real = fake.addList("the person's real SPRINT PLAN");
  Deno.writeTextFileSync(
    join(asmHome, "real-lists.json"),
    JSON.stringify({ v: 1, lists: [{ backend: "workflowy", location: real }] }),
  );
  Deno.writeTextFileSync(
    join(asmHome, "config.toml"),
    `mode = "testing"\n[board]\nbackend = "workflowy"\nkey_file = "workflowy.key"\nurl = "${fake.url}"\n` +
      `lists = { plan = "${lists.plan}", process = "${lists.process}", complete = "${lists.complete}" }\n` +
      `folders = { webapp = "${folder}" }\n`,
  );
  await using tmux = testTmux();
  const server = startServer({
    asmHome,
    port: 0,
    env: { ...home, ASM_TMUX_SOCKET: tmux.socketPath },
    routes: ROUTES,
    services: [],
  });
  try {
    const sprint = async (fresh = "") => await (await server.api(`/api/sprint${fresh}`)).json();
    const first = await sprint("?fresh=1");
    assert.deepEqual([first.board.backend, first.board.problem, first.board.stale], [
      "workflowy",
      null,
      false,
    ]);
    assert.equal(first.board.location, `Workflowy lists ${lists.plan}, ${lists.process}, ${lists.complete}`);
    assert.deepEqual(
      [
        first.board.lists[0].cards[0].id,
        first.board.lists[0].cards[0].title,
        first.board.lists[0].cards[0].prompt,
      ],
      [card, "Fix A & B", ["go <now>"]],
    );
    fake.failNext({ status: 503, retryAfter: 300 });
    const res = await server.api(`/api/sprint/${card}/start`, { method: "POST", body: "{}" });
    const body = await res.json();
    assert.equal(res.status, 503);
    assert.match(body.error, /^Workflowy answered GET \/nodes with 503.*asm leaves Workflowy alone until/);
    assert.equal(fake.nameOf(card), "<b>Fix</b> A &amp; B #webapp #typist", "nothing rewritten");
    const stale = await sprint("?fresh=1");
    assert.match(stale.board.problem, /leaves Workflowy alone until/);
    assert.equal(stale.board.stale, true);
    assert.equal(stale.board.lists[0].cards[0].title, "Fix A & B", "the last board read is still shown");
    assert.ok(
      !Deno.readTextFileSync(join(asmHome, "server.log")).includes(fake.key),
      "the key is in no log line",
    );
  } finally {
    await server.close();
    Deno.removeSync(root, { recursive: true });
  }
});
