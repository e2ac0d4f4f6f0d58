import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { Ledger } from "./ledger.ts";
import { bindCard, markCompleted, markDropped, setSyncedTitle } from "./links.ts";
import { recordLaunch } from "./launches.ts";
import { cardLinkSource, replaceCardLinks, sessionsOfLaunchTokens } from "./links_carry.ts";
import { openReadOnly } from "./read_only.ts";
import { hookEvent } from "./_test_utils.ts";

const T0 = "2026-12-04T10:00:00.000Z";

function scratch() {
  const dir = Deno.makeTempDirSync({ prefix: "asm-links-carry-" });
  return { dir, [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }) };
}

Deno.test("a link carried to another ledger keeps every column: card, session, origin, marks, times, title, filing", () => {
  using s = scratch();
  const from = Ledger.open(join(s.dir, "from.sqlite"));
  const to = Ledger.open(join(s.dir, "to.sqlite"));
  try {
    bindCard(from, { cardId: "c-1", asmId: "s-1", origin: "start", title: "Fix login", at: T0 });
    bindCard(from, {
      cardId: "c-2",
      asmId: "s-2",
      origin: "create",
      title: "Docs",
      syncedTitle: "Docs",
      at: T0,
    });
    markDropped(from, "c-1", "2026-12-04T11:00:00.000Z");
    markCompleted(from, "c-2", "2026-12-04T12:00:00.000Z");
    setSyncedTitle(from, "c-1", "Fix the login");
    bindCard(to, { cardId: "c-old", asmId: "s-old", origin: "adopt", at: T0 });
    const carried = cardLinkSource(from).links;
    replaceCardLinks(to, carried);
    assert.deepEqual(cardLinkSource(to).links, carried);
    assert.deepEqual(carried.map((l) => [l.cardId, l.dropped, l.droppedAt, l.completed, l.syncedTitle]), [
      ["c-1", true, "2026-12-04T11:00:00.000Z", false, "Fix the login"],
      ["c-2", false, null, true, "Docs"],
    ]);
  } finally {
    from.close();
    to.close();
  }
});

Deno.test("a card's launch names its session: matched, else the session that carried its token", () => {
  using s = scratch();
  const ledger = Ledger.open(join(s.dir, "ledger.sqlite"));
  try {
    const launch = {
      agent: "claude",
      kind: "launch" as const,
      cwd: "/w",
      name: "Card",
      model: null,
      script_path: "/w/x.sh",
      prompt_path: null,
      continues_asm_id: null,
      resumes_asm_id: null,
      waiting_reason: null,
      host: "fake",
    };
    recordLaunch(ledger, { ...launch, token: "asmlt_a", sprint_node: "c-1", requested_at: T0 });
    recordLaunch(ledger, { ...launch, token: "asmlt_b", sprint_node: null, requested_at: T0 });
    const start = hookEvent({ agent_session_id: "launched", launch_token: "asmlt_a" });
    ledger.applyEvent(start);
    assert.deepEqual(cardLinkSource(ledger).launches, [
      { token: "asmlt_a", cardId: "c-1", requestedAt: T0, asmId: start.asm_id },
    ]);
    assert.equal(sessionsOfLaunchTokens(ledger).get("asmlt_a"), start.asm_id);
  } finally {
    ledger.close();
  }
});

Deno.test("a ledger whose writer was killed before a checkpoint gives its links read-only, from its WAL, and is left as it was", async () => {
  using s = scratch();
  const path = join(s.dir, "ledger.sqlite");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--no-config",
      `
      import { Ledger } from "${fileURLToPath(new URL("./ledger.ts", import.meta.url))}";
      import { bindCard } from "${fileURLToPath(new URL("./links.ts", import.meta.url))}";
      const ledger = Ledger.open(${JSON.stringify(path)});
      bindCard(ledger, { cardId: "c-1", asmId: "s-1", origin: "start", at: "${T0}" });
      bindCard(ledger, { cardId: "c-2", asmId: "s-2", origin: "start", at: "${T0}" });
      console.log("bound");
      // held open, never closed: only the kill ends it, as a server killed mid-run
      await new Promise((r) => setTimeout(r, 60_000));
    `,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /bound/);
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  // set aside as `./asm rebuild` does: the WAL and its index go with their database
  const aside = `${path}.before-rebuild-x`;
  for (const suffix of ["", "-wal", "-shm"]) Deno.renameSync(path + suffix, aside + suffix);
  const walBefore = Deno.readFileSync(`${aside}-wal`);
  assert.ok(walBefore.length > 0, "the links are in the WAL only");

  const ledger = openReadOnly(aside)!;
  try {
    assert.equal(ledger.tablesProblem(["sprint_links", "launches"]), null);
    assert.deepEqual(ledger.cardLinks().links.map((l) => `${l.cardId}->${l.asmId}`), [
      "c-1->s-1",
      "c-2->s-2",
    ]);
  } finally {
    ledger.close();
  }
  assert.deepEqual(
    Deno.readFileSync(`${aside}-wal`),
    walBefore,
    "a read-only reader neither checkpoints nor deletes",
  );
});

Deno.test("a file with no sprint_links table is not a ledger, said in a sentence", () => {
  using s = scratch();
  const path = join(s.dir, "other.sqlite");
  const db = new DatabaseSync(path);
  db.exec(
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '7')",
  );
  db.close();
  const ledger = openReadOnly(path)!;
  try {
    assert.throws(() => ledger.cardLinks(), /no sprint_links table, so it is not a ledger asm wrote/);
  } finally {
    ledger.close();
  }
});
