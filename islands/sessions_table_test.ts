import assert from "node:assert/strict";
import { sessionView } from "../lib/ui/session_view.ts";
import { applyView, queryOfView, viewOfQuery } from "./sessions_table.tsx";

const NOW = Date.parse("2026-12-01T09:00:00.000Z");

function row(id: string, over: Record<string, unknown>) {
  return sessionView({
    asm_id: id,
    agent: "claude",
    agent_session_id: id,
    status: "ended",
    title: id,
    project: "p",
    turns: 1,
    context_tokens: null,
    closeout: null,
    hidden_reason: null,
    last_seen: "2026-12-01T08:00:00.000Z",
    ...over,
  }, NOW);
}

Deno.test("the address holds the filters and the sort; anything it does not know is the default", () => {
  assert.deepEqual(viewOfQuery("?agent=codex&status=live&project=web&sort=context"), {
    agent: "codex",
    status: "live",
    project: "web",
    sort: "context",
  });
  assert.deepEqual(viewOfQuery("?status=sideways&sort=random"), {
    agent: "",
    status: "",
    project: "",
    sort: "",
  });
  const v = { agent: "", status: "live" as const, project: "", sort: "needs" as const };
  assert.equal(
    queryOfView("?all=1&agent=codex", v),
    "?all=1&status=live&sort=needs",
    "other keys kept, defaults left out",
  );
});

Deno.test("every sortable column sorts: agent, status (live first), context (fullest first, no reading last)", () => {
  const rows = [
    row("a", { agent: "gemini", context_tokens: 10_000, context_window: 1_000_000 }),
    row("b", { agent: "claude", status: "live", context_tokens: 150_000, context_window: 200_000 }),
    row("c", { agent: "codex", context_tokens: null }),
  ];
  const order = (sort: string) =>
    applyView(rows, { agent: "", status: "", project: "", sort: sort as never }).map((r) => r.id);
  assert.deepEqual(order("agent"), ["b", "c", "a"]);
  assert.deepEqual(order("status"), ["b", "a", "c"]);
  assert.deepEqual(order("context"), ["b", "a", "c"]);
});
