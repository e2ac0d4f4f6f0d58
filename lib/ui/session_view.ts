/**
 * What one row of the Sessions table shows, computed from a ledger row. Pure, so the server render and the
 * browser agree, and a test can check every word without a browser.
 * @module
 */
import {
  activityText,
  activityTone,
  ageText,
  closeoutText,
  contextText,
  contextTip,
  statusTone,
  statusWord,
  type Tone,
  turnsText,
} from "./words.ts";

/**
 * The facts a row needs: a row of `GET /api/sessions` (lib/ledger derived.ts SessionView), plus, for a live
 * session, its activity from `GET /api/live`.
 */
export interface SessionFacts {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: string;
  title: string | null;
  project: string | null;
  turns: number | null;
  context_tokens: number | null;
  /** the model's context window; absent or null when not known */
  context_window?: number | null;
  closeout: string | null;
  hidden_reason: string | null;
  /** why asm cannot prove a live session's process (it reads UNSURE); null when it can */
  unsure_reason?: string | null;
  last_seen: string | null;
  /** the word a person reads (`Working`, ...), from the live payload */
  activity_word?: string | null;
  /** a pane proven to hold its process (the live payload): Jump and Send are offered */
  pane?: boolean;
  activity_reason?: string | null;
  /** only the ends of its transcript were read yet: turns, project and closeout are being derived */
  deriving?: boolean;
  /** its visibility waits for the whole transcript: it says "still being read" and is counted apart */
  still_being_read?: boolean;
}

/** One row as the page draws it. */
export interface SessionView {
  id: string;
  agent: string;
  title: string;
  /** true while there is no title at all yet */
  untitled: boolean;
  project: string;
  status: string;
  statusWord: string;
  statusTip: string;
  /** colour and shape of the status cell */
  statusTone: Tone;
  live: boolean;
  /** a pane is proven: the row offers Jump and Send */
  pane: boolean;
  activity: string;
  /** the activity's word and reason apart (the top bar's glance) */
  activityWord: string | null;
  activityReason: string | null;
  /** colour and shape of the activity cell */
  activityTone: Tone;
  context: string;
  /** the context's share of the window (0-1), else its raw tokens as a share of a million; null: no reading */
  contextRank: number | null;
  /** the raw tokens and the window, for the Context cell's tooltip */
  contextTip: string;
  closeout: string;
  turns: string;
  lastSeen: string | null;
  /** "3 min ago", as of the moment the view was made */
  seen: string;
  hiddenReason: string | null;
  /** turns, project and closeout are being derived: their cells say "deriving" (`project` stays "" for filters) */
  deriving: boolean;
  /** shown with the words "still being read" until its whole transcript says whether it shows */
  stillBeingRead: boolean;
}

/** The row's view, its ages as of `now` (epoch ms). */
export function sessionView(s: SessionFacts, now: number = Date.now()): SessionView {
  const { word, tip } = statusWord(s.status, null, s.unsure_reason ?? null);
  const live = s.status === "live" || s.status === "starting";
  return {
    id: s.asm_id,
    agent: s.agent,
    title: s.title || `(no title yet) ${s.agent_session_id.slice(0, 8)}`,
    untitled: !s.title,
    // the data filters and sorts read: a deriving row has no project yet (its cell says so)
    project: s.deriving ? "" : s.project ?? "",
    status: s.status,
    statusWord: word,
    statusTip: tip,
    statusTone: statusTone(word),
    live,
    pane: live && s.pane === true,
    activity: live ? activityText(s.activity_word, s.activity_reason) : "",
    activityWord: live ? s.activity_word ?? null : null,
    activityReason: live ? s.activity_reason ?? null : null,
    activityTone: live ? activityTone(s.activity_word) : "none",
    context: contextText(s.context_tokens, s.context_window),
    contextRank: s.context_tokens === null || s.context_tokens === undefined
      ? null
      : s.context_tokens / (s.context_window || 1_000_000),
    contextTip: contextTip(s.context_tokens, s.context_window),
    closeout: closeoutText(s.closeout, s.deriving === true),
    turns: turnsText(s.turns, s.deriving === true),
    lastSeen: s.last_seen,
    seen: ageText(s.last_seen, now),
    hiddenReason: s.hidden_reason,
    deriving: s.deriving === true,
    stillBeingRead: s.still_being_read === true,
  };
}

/** Joins the list rows with the live payload's activity (by asm id). */
export function withActivity(
  rows: SessionFacts[],
  live: { asm_id: string; activity_word: string | null; activity_reason: string | null; pane?: boolean }[],
): SessionFacts[] {
  const byId = new Map(live.map((l) => [l.asm_id, l]));
  return rows.map((r) => {
    const l = byId.get(r.asm_id);
    return l ? { ...r, activity_word: l.activity_word, activity_reason: l.activity_reason, pane: l.pane } : r;
  });
}

/** The order of the table: live sessions first, then newest seen first; ties by id so it never flickers. */
export function sortViews(views: SessionView[]): SessionView[] {
  return [...views].sort((a, b) =>
    Number(b.live) - Number(a.live) || (b.lastSeen ?? "").localeCompare(a.lastSeen ?? "") ||
    a.id.localeCompare(b.id)
  );
}
