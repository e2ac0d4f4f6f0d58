/**
 * What one row of the Sessions table shows, computed from a ledger row. Pure, so the server render and the
 * browser agree, and a test can check every word without a browser.
 * @module
 */
import { activityText, ageText, contextText, statusWord } from "./words.ts";

/** The facts a row needs (a subset of the ledger's session row; later layers add more, all optional). */
export interface SessionFacts {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: string;
  end_reason: string | null;
  name: string | null;
  cwd: string | null;
  last_seen: string | null;
  started_at: string | null;
  hidden_reason: string | null;
  first_message?: string | null;
  project?: string | null;
  turns?: number | null;
  prompts?: number;
  context_tokens?: number | null;
  closeout_state?: string | null;
  activity?: string | null;
  activity_reason?: string | null;
}

/** One row as the page draws it. */
export interface SessionView {
  id: string;
  agent: string;
  title: string;
  /** true while the title is only the first message or a placeholder: the person never named it */
  untitled: boolean;
  project: string;
  status: string;
  statusWord: string;
  statusTip: string;
  live: boolean;
  activity: string;
  context: string;
  closeout: string;
  turns: string;
  lastSeen: string | null;
  /** "3 min ago", as of the moment the view was made */
  seen: string;
  hiddenReason: string | null;
}

function folderName(cwd: string | null): string {
  if (!cwd) return "";
  return cwd.replace(/\/+$/, "").split("/").pop() ?? "";
}

/** The row's view, its ages as of `now` (epoch ms). */
export function sessionView(s: SessionFacts, now: number = Date.now()): SessionView {
  const { word, tip } = statusWord(s.status, s.end_reason);
  const live = s.status === "live" || s.status === "starting";
  const first = s.first_message?.replace(/\s+/g, " ").trim() ?? "";
  return {
    id: s.asm_id,
    agent: s.agent,
    title: s.name || first.slice(0, 120) || `(no title yet) ${s.agent_session_id.slice(0, 8)}`,
    untitled: !s.name,
    project: s.project ?? folderName(s.cwd),
    status: s.status,
    statusWord: word,
    statusTip: tip,
    live,
    activity: live ? activityText(s.activity, s.activity_reason) : "",
    context: contextText(s.context_tokens),
    closeout: s.closeout_state === "closed" ? "closed out" : s.closeout_state === "open" ? "open" : "",
    turns: String(s.turns ?? s.prompts ?? ""),
    lastSeen: s.last_seen,
    seen: ageText(s.last_seen, now),
    hiddenReason: s.hidden_reason,
  };
}

/** The order of the table: live sessions first, then newest seen first; ties by id so it never flickers. */
export function sortViews(views: SessionView[]): SessionView[] {
  return [...views].sort((a, b) =>
    Number(b.live) - Number(a.live) || (b.lastSeen ?? "").localeCompare(a.lastSeen ?? "") ||
    a.id.localeCompare(b.id)
  );
}
