import assert from "node:assert/strict";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { asmIdOf } from "../../lib/ledger/mod.ts";
import { importOnce } from "../../lib/history/mod.ts";
import { loadAgents } from "../../lib/agents/mod.ts";
import { startServer } from "../../lib/server/mod.ts";
import { ROUTES } from "../mod.ts";

const FIXTURES = Deno.env.get("ASM_FIXTURES") ??
  new URL("../../../shared/fixtures", import.meta.url).pathname;

Deno.test("a session's detail shows its conversation from its transcript, and the page draws it", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const dir = join(FIXTURES, "claude", "p-mode", "transcripts");
    const name = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".jsonl"))!.name;
    // where Claude Code keeps it: a transcript is read only inside its agent's own folders
    const transcript = join(home, ".claude", "projects", "-p", name);
    Deno.mkdirSync(join(home, ".claude", "projects", "-p"), { recursive: true });
    Deno.copyFileSync(join(dir, name), transcript);
    const e = hookEvent({ agent_session_id: name.replace(".jsonl", ""), transcript_path: transcript });
    server.ledger.applyEvent(e);

    const res = await server.api(`/api/sessions/${e.asm_id}`);
    assert.equal(res.status, 200);
    const detail = await res.json();
    assert.equal(detail.session.asm_id, e.asm_id);
    assert.equal(detail.runs.length, 1);
    const prompts = detail.entries.flatMap((e: { records: { kind: string }[] }) =>
      e.records.filter((r) => r.kind === "prompt")
    );
    assert.ok(prompts.length > 0, "the typed prompt is there");
    assert.equal(detail.note, null);
    assert.ok(detail.totals.model, "the model the transcript names");
    assert.equal(detail.resume_command, `cd ${e.cwd} && claude --resume ${e.agent_session_id}`);

    const pageRes = await fetch(`${server.url}/sessions/${e.asm_id}`);
    const page = parseHTML(await pageRes.text()).document;
    assert.equal(page.querySelectorAll(".msg-prompt").length, prompts.length);
    assert.match(page.querySelector("[data-resume-command]")?.textContent ?? "", /claude --resume/);

    const missing = await server.api(`/api/sessions/no-such-id`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const missingPage = await fetch(`${server.url}/sessions/no-such-id`);
    assert.equal(missingPage.status, 404, "an unknown id is a 404 page");
    assert.match(await missingPage.text(), /asm has no session no-such-id/);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a session whose start skipped standing rules carries the note, and only its page has a Standing rules row", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const why =
      "standing rules skipped: /home/user/project/.asm/rules.md is a link outside the session's folder";
    const skipped = hookEvent({ agent_session_id: "rules-skipped", rules_skipped: why });
    const clean = hookEvent({ agent_session_id: "rules-applied" });
    server.ledger.applyEvent(skipped);
    server.ledger.applyEvent(clean);

    const detail = await (await server.api(`/api/sessions/${skipped.asm_id}`)).json();
    assert.equal(detail.session.rules_note, why);
    const other = await (await server.api(`/api/sessions/${clean.asm_id}`)).json();
    assert.equal(other.session.rules_note, null);

    const rulesRow = async (asmId: string) => {
      const page = parseHTML(await (await fetch(`${server.url}/sessions/${asmId}`)).text()).document;
      const term = [...page.querySelectorAll("dt")].find((dt) => dt.textContent === "Standing rules");
      return term ? term.nextElementSibling?.textContent ?? "" : null;
    };
    assert.equal(await rulesRow(skipped.asm_id), why);
    assert.equal(await rulesRow(clean.asm_id), null);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("the session page says what kind of session the agent's files say it is, with the raw thread source", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const id = "01a2295f-0ad6-7852-afe2-883c2e6eae7a";
    const rollout = Deno.readTextFileSync(
      join(FIXTURES, "codex", "rollouts", "tui-chat-plus-tool-call.rollout.jsonl"),
    )
      .replace('"thread_source":"user"', '"thread_source":"cli"'); // as another version spells it
    const dir = join(home, ".codex", "sessions", "2026", "11", "29");
    Deno.mkdirSync(dir, { recursive: true });
    Deno.writeTextFileSync(join(dir, `rollout-2026-11-29T22-13-44-${id}.jsonl`), rollout);
    await importOnce({
      ledger: server.ledger,
      agents: loadAgents({ asmHome: home, env }),
      env,
      asmHome: home,
      harnessRoots: [],
      log: () => {},
    });
    const page =
      parseHTML(await (await fetch(`${server.url}/sessions/${asmIdOf("codex", id)}`)).text()).document;
    const facts = Object.fromEntries(
      [...page.querySelectorAll("dt")].map((
        dt,
      ) => [dt.textContent, dt.nextElementSibling?.textContent ?? ""]),
    );
    assert.equal(facts["Kind"], 'interactive, thread source "cli"');
    assert.equal(facts["Hidden"], undefined, "a thread source asm does not know hides nothing");
    // Codex records a skill's run, so its badge reads "open" (the closeout skill did not run here), but asm
    // cannot start one in it: the page says so beside the badge, and offers no button
    const note = "Codex records a skill's run, so the badge says whether the closeout skill ran, but asm " +
      "cannot start one in it: its $ skill menu takes the Enter asm types, so asm offers no Closeout button " +
      "for Codex sessions";
    // every state of the cell is drawn, all but one hidden: "deriving", "closed out", "open", "no skill"
    assert.equal(facts["Closeout"], `derivingclosed outopenno skill${note}`);
    assert.deepEqual(
      [...page.querySelectorAll("[data-closeout-for] > span:not([hidden])")].map((e) => e.textContent),
      ["open", note],
      "only the badge and the agent's answer show",
    );
    assert.equal(page.querySelector("[data-closeout-for] [data-closeout-open]")?.getAttribute("title"), note);
    assert.equal(page.querySelector("[data-closeout-for] button"), null, "no Closeout button");
    // and the list's cell carries the same sentence as its tip
    const list = parseHTML(await (await fetch(`${server.url}/?all=1`)).text()).document;
    assert.equal(
      list.querySelector(`[data-closeout-for="${asmIdOf("codex", id)}"] [data-closeout-open]`)
        ?.getAttribute("title"),
      note,
    );
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

/** A typed Claude prompt line, as the real interactive fixture writes one. */
function typedLine(text: string, n: number): string {
  return JSON.stringify({
    parentUuid: null,
    type: "user",
    message: { role: "user", content: text },
    uuid: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: new Date(Date.UTC(2026, 10, 29, 22, 0, 0) + n * 1000).toISOString(),
    origin: { kind: "human" },
    promptSource: "typed",
    sessionId: "9489399f-ac78-4316-81cd-2726c9579121",
  });
}

/** A server with one Claude session whose transcript holds `lines`. */
async function withTranscript(
  lines: string[],
  run: (ctx: { server: ReturnType<typeof startServer>; path: string; asmId: string }) => Promise<void>,
) {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const dir = join(home, ".claude", "projects", "-p");
    Deno.mkdirSync(dir, { recursive: true });
    const path = join(dir, "9489399f-ac78-4316-81cd-2726c9579121.jsonl");
    Deno.writeTextFileSync(path, lines.map((l) => l + "\n").join(""));
    const e = hookEvent({ agent_session_id: "9489399f-ac78-4316-81cd-2726c9579121", transcript_path: path });
    server.ledger.applyEvent(e);
    await run({ server, path, asmId: e.asm_id });
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
}

/** Reads stream lines until `want` holds for one of them (or the deadline passes). */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  seen: Record<string, unknown>[],
  want: (m: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  let pending = "";
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended; it said ${JSON.stringify(seen)}`);
    pending += value;
    let nl;
    while ((nl = pending.indexOf("\n")) !== -1) {
      const m = JSON.parse(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      seen.push(m);
      if (want(m)) return m;
    }
  }
  throw new Error(`gave up; the stream said ${JSON.stringify(seen)}`);
}

function entryHtml(m: Record<string, unknown>): string {
  return ((m.entries ?? []) as { html: string }[]).map((e) => e.html).join("");
}

Deno.test("the stream says the session's state, appends what the transcript gains (a half-written line waits for its newline), and asks for a reload when the file is rewritten", async () => {
  await withTranscript([typedLine("the first prompt", 1)], async ({ server, path, asmId }) => {
    const detail = await (await server.api(`/api/sessions/${asmId}`)).json();
    assert.equal(detail.entries.length, 1);
    // a cursor naming a path, or nonsense, names no file: it is left out, never read
    const cursor = `${detail.cursor},../../../etc/passwd:0,zz`;
    const res = await server.api(
      `/api/sessions/${asmId}/stream?every_ms=200&cursor=${encodeURIComponent(cursor)}`,
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/x-ndjson; charset=utf-8");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const seen: Record<string, unknown>[] = [];
    try {
      const state = await readUntil(reader, seen, (m) => "state" in m);
      assert.equal((state.state as { status: string }).status, "live");
      const half = typedLine("the second prompt", 2);
      Deno.writeTextFileSync(path, half.slice(0, 40), { append: true });
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(seen.filter((m) => "entries" in m).length, 0, "a line still being written is not sent");
      Deno.writeTextFileSync(path, half.slice(40) + "\n", { append: true });
      const grown = await readUntil(reader, seen, (m) => "entries" in m);
      assert.match(entryHtml(grown), /the second prompt/);
      assert.doesNotMatch(entryHtml(grown), /the first prompt/, "what the page had is not sent again");
      assert.equal(typeof grown.cursor, "string");

      server.ledger.applyEvent(hookEvent({
        event: "SessionEnd",
        agent_session_id: "9489399f-ac78-4316-81cd-2726c9579121",
      }));
      const ended = await readUntil(reader, seen, (m) => "state" in m);
      assert.equal(
        (ended.state as { status: string }).status,
        "ended",
        "the header learns the session ended",
      );

      Deno.writeTextFileSync(path, typedLine("rewritten", 3) + "\n");
      await readUntil(reader, seen, (m) => m.reload === true);
    } finally {
      await reader.cancel();
    }
    const unknown = await server.api(`/api/sessions/nope/stream`);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });
});

Deno.test("the page holds the newest entries; Show earlier draws the ones before; a search hit opens the part around it, marked", async () => {
  const lines = Array.from(
    { length: 700 },
    (_, i) => typedLine(i === 20 ? "find the NEEDLE here" : `prompt ${i}`, i),
  );
  await withTranscript(lines, async ({ server, asmId }) => {
    const html = await (await fetch(`${server.url}/sessions/${asmId}`)).text();
    const page = parseHTML(html).document;
    assert.equal(page.querySelectorAll(".msg-prompt").length, 300, "the newest page");
    assert.match(page.querySelector("[data-show-earlier]")?.textContent ?? "", /400 more/);
    assert.equal(page.querySelector("[data-detail-for]")?.getAttribute("data-follow"), "1");
    const first = page.querySelector("[data-entries] [data-key]")!.getAttribute("data-key")!;
    const earlier = await (await server.api(
      `/api/sessions/${asmId}/entries?before=${encodeURIComponent(first)}`,
    )).json();
    const drawn = parseHTML(`<div>${earlier.html}</div>`).document;
    assert.equal(drawn.querySelectorAll(".msg-prompt").length, 300);
    assert.equal(earlier.earlier, 100);
    assert.match(drawn.querySelectorAll(".msg-prompt")[299].textContent, /prompt 399/);

    const found =
      parseHTML(await (await fetch(`${server.url}/sessions/${asmId}?find=needle`)).text()).document;
    const hit = found.getElementById("hit")!;
    assert.match(hit.textContent, /find the NEEDLE here/);
    assert.equal(hit.querySelector("mark")?.textContent, "NEEDLE", "the term is marked in the hit");
    assert.equal(found.querySelectorAll("mark").length, 1, "only in the hit");
    assert.match(found.querySelector("[data-show-earlier]")?.textContent ?? "", /10 more/);
  });
});

Deno.test("a page that stops reading its stream is sent nothing more, and the transcript is not read on for it", async () => {
  await withTranscript([typedLine("the first prompt", 1)], async ({ server, path, asmId }) => {
    const cursor = (await (await server.api(`/api/sessions/${asmId}`)).json()).cursor;
    const res = await server.api(
      `/api/sessions/${asmId}/stream?every_ms=200&cursor=${encodeURIComponent(cursor)}`,
    );
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    await reader.read(); // the state; then the page reads nothing
    // the burst is encoded once: 64 fresh copies of it would be this process's garbage, counted as the server's
    const burst = new TextEncoder().encode(
      Array.from({ length: 5000 }, (_, i) => typedLine(`burst line ${i} ${"x".repeat(150)}`, i + 10))
        .join("\n") + "\n",
    );
    const before = Deno.memoryUsage().rss;
    for (let i = 0; i < 64; i++) Deno.writeFileSync(path, burst, { append: true }); // about 64 MB
    await new Promise((r) => setTimeout(r, 3000));
    const grew = Math.round((Deno.memoryUsage().rss - before) / 1e6);
    console.log(`64 MB appended while the page read nothing: server RSS +${grew} MB`);
    assert.ok(grew < 100, `the unread stream held ${grew} MB`);
    // reading again, the page gets what the transcript gained, in order
    const { value } = await reader.read();
    assert.match(value ?? "", /burst line 0 /);
    await reader.cancel();
  });
});

Deno.test("each page draw starts from its own request: Jump shows once the pane is proven, whatever an earlier draw showed", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const e = hookEvent({ agent_session_id: "7d3b1c2a-0000-4000-8000-000000000001" });
    server.ledger.applyEvent(e);
    const jump = async () => {
      const page = parseHTML(await (await fetch(`${server.url}/sessions/${e.asm_id}`)).text()).document;
      const button = [...page.querySelectorAll(".session-actions button")].find((b) =>
        b.textContent === "Jump"
      );
      assert.ok(button, "the live session's page has a Jump button");
      return button.hasAttribute("hidden") ? "hidden" : "shown";
    };
    assert.equal(await jump(), "hidden", "no pane proven yet");
    server.context.state.panes = new Set([e.asm_id]);
    assert.equal(await jump(), "shown", "the pane is proven: the next draw shows Jump");
    server.context.state.panes = new Set();
    assert.equal(await jump(), "hidden");
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
