/// <reference lib="dom" />
/**
 * The 5-second poll of `/api/live`. It writes into cells (no render): status, activity and their tones, context,
 * turns, project, closeout, and every row's relative last-seen time. Only a change in WHICH sessions are live, a
 * changed name, or a moved `list_digest` (a row added, ended or changed while not live) re-fetches the rows and
 * re-sorts the table (the one allowed render). The board island is
 * fetched again when `board_digest` moved or the live ids changed (islands/board_store.ts), and its cards' status
 * cells are the same cells as the table's.
 * @module
 */
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import {
  activityText,
  activityTone,
  ageText,
  closeoutText,
  contextText,
  contextTip,
  DERIVING,
  projectText,
  statusTone,
  statusWord,
  turnsText,
} from "../lib/ui/words.ts";
import { setCell } from "./live_store.ts";
import { fetchAllRows, renderedRows, tableShown } from "./sessions_table.tsx";
import { updateGlance } from "./top_bar.tsx";
import { updateLaunches } from "./launches.tsx";
import type { PendingLaunchView } from "../lib/liveness/live_payload.ts";
import { api } from "./api.ts";
import { boardShows, followBoard, patchCardCells } from "./board_store.ts";
import { followImport, importBarShown } from "./import_bar.tsx";

/** One session in the live payload. */
export interface LiveSession {
  asm_id: string;
  agent: string;
  status: string;
  end_reason?: string | null;
  unsure_reason?: string | null;
  name?: string | null;
  /** the word a person reads (the API keeps the stored key in `activity`) */
  activity_word: string | null;
  activity_reason: string | null;
  context_tokens: number | null;
  context_window?: number | null;
  pane?: boolean;
  turns?: number | null;
  last_seen?: string | null;
  project?: string | null;
  closeout?: string | null;
  /** turns, project and closeout are being derived: their cells say "deriving" */
  deriving?: boolean;
}

let lastRevision: number | null = null;
/** The list digest of the last tick (null before the first): a change fetches the list again. */
let lastListDigest: string | null = null;
/** The newest last-seen time of each live session, from the payload (the rows keep their first render's). */
const lastSeenOf = new Map<string, string>();

function liveSet(ids: Iterable<string>): string {
  return [...ids].sort().join(",");
}

async function tick(): Promise<void> {
  const all = new URLSearchParams(location.search).get("all") === "1" ? "?all=1" : "";
  const res = await api(`/api/live${all}`);
  if (!res.ok) return;
  const live = await res.json() as {
    revision: number;
    sessions: LiveSession[];
    launches?: PendingLaunchView[];
    live?: string[];
    board_digest?: string | null;
    list_digest?: string | null;
  };
  updateLaunches(live.launches ?? []);
  const rows = renderedRows();
  const shown = new Map(rows.map((r) => [r.id, r]));
  const nowLive = live.sessions.filter((s) => s.status === "live" || s.status === "starting").map((s) =>
    s.asm_id
  );
  const wasLive = rows.filter((r) => r.live).map((r) => r.id);
  const renamed = live.sessions.some((s) =>
    s.name && shown.has(s.asm_id) && shown.get(s.asm_id)!.title !== s.name
  );
  // a row the import or a hook added, ended or changed while not live: the list is fetched again
  const listMoved = lastListDigest !== null && (live.list_digest ?? null) !== lastListDigest;
  lastListDigest = live.list_digest ?? null;
  for (const s of live.sessions) if (s.last_seen) lastSeenOf.set(s.asm_id, s.last_seen);
  // only a page that shows the list fetches it (a session page or the board alone has no rows to re-sort)
  if (tableShown() && (liveSet(nowLive) !== liveSet(wasLive) || renamed || listMoved)) {
    await fetchAllRows();
    // rows an import listed since the page loaded: its bar follows it to its end
    if (importBarShown() && renderedRows().some((r) => r.deriving)) followImport();
  } else if (live.revision !== lastRevision) {
    for (const s of live.sessions) {
      // a card's session shares the status cell with its row; it may be a row the table has not loaded
      const onBoard = boardShows(s.asm_id);
      if (!shown.has(s.asm_id) && !onBoard) continue;
      const status = statusWord(s.status, s.end_reason ?? null, s.unsure_reason ?? null).word;
      setCell("status", s.asm_id, status);
      setCell("status-tone", s.asm_id, statusTone(status));
      if (onBoard) patchCardCells(s.asm_id, s.status, s.unsure_reason ?? null);
      if (!shown.has(s.asm_id)) continue;
      writeCells(s);
    }
  }
  lastRevision = live.revision;
  // the board: fetched again when its digest moved or the live ids changed (not hashed by the digest)
  await followBoard(live.board_digest ?? null, live.live ?? live.sessions.map((s) => s.asm_id));
  const byId = new Map(renderedRows().map((r) => [r.id, r]));
  updateGlance(live.sessions.map((s) => ({
    asm_id: s.asm_id,
    agent: s.agent,
    title: byId.get(s.asm_id)?.title ?? s.name ?? s.asm_id.slice(0, 8),
    project: byId.get(s.asm_id)?.project ?? "",
    status: s.status,
    activity: s.activity_word,
    activity_reason: s.activity_reason,
  })));
  const now = Date.now();
  // relative times tick on every poll; a live session's last seen comes from the payload, not the first render
  for (const r of renderedRows()) setCell("seen", r.id, ageText(lastSeenOf.get(r.id) ?? r.lastSeen, now));
}

/** Writes one session's cells (the list's row, the session page's header) from what the server says of it. */
export function writeCells(s: LiveSession): void {
  const live = s.status === "live" || s.status === "starting";
  setCell("activity", s.asm_id, live ? activityText(s.activity_word, s.activity_reason) : "");
  setCell("activity-tone", s.asm_id, live ? activityTone(s.activity_word) : "none");
  setCell("context", s.asm_id, contextText(s.context_tokens, s.context_window));
  setCell("context-tip", s.asm_id, contextTip(s.context_tokens, s.context_window));
  setCell("no-pane", s.asm_id, s.pane ? "" : "hidden");
  // a row being derived says so in these three cells, whatever its columns hold so far
  const deriving = s.deriving === true;
  setCell("deriving", s.asm_id, deriving ? DERIVING : "");
  setCell("turns", s.asm_id, turnsText(s.turns, deriving));
  setCell("project", s.asm_id, projectText(s.project, deriving));
  setCell("closeout", s.asm_id, closeoutText(s.closeout, deriving));
}

/** Starts polling every `everyMs`; a failed tick is retried on the next one. */
export function startLivePoll(everyMs: number): void {
  const loop = async () => {
    try {
      await tick();
    } catch (err) {
      console.warn("asm: live poll failed", err);
    }
    setTimeout(loop, everyMs);
  };
  setTimeout(loop, everyMs);
}
