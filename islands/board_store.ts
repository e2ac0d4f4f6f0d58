/// <reference lib="dom" />
/**
 * The board island's state: the payload of `GET /api/sprint` it draws, and when to fetch it again. The board is
 * fetched again only when `/api/live`'s `board_digest` moved, when the set of live ids changed (a launched session
 * joins it 10-15 s after the click, and the digest does not hash the live set), and after every button; never on
 * a quiet tick. A fetch that brings the board already drawn renders nothing. Between fetches, a card's status is
 * a cell of the live store (the same cells as the Sessions table), written by the poll without a render.
 * @module
 */
import { type Signal, signal } from "@preact/signals";
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import { boundSessions, liveKey, liveStatus, sameBoard } from "../lib/ui/board_view.ts";
import type { SprintPayload } from "../lib/reconcile/view.ts";
import { setCell } from "./live_store.ts";
import { api } from "./api.ts";

/** The board drawn after the first render (null until a fetch replaced the server's). */
export const board = signal<SprintPayload | null>(null);

/** True once the page holds a board island (other pages have none, and the poll leaves them alone). */
let present = false;
/** What the page drew last: the server's payload, then each fetched one that differed. */
let current: SprintPayload | null = null;
let bound = new Set<string>();
/** The digest and live set the page last caught up with (`/api/live`'s, not the payload's). */
let seenDigest: string | null = null;
let seenLive = "";
let fetching: Promise<boolean> | null = null;
let again = false;

/** The island's first render hands its server-rendered props here (once). */
export function adoptBoard(payload: SprintPayload, liveIds: readonly string[]): void {
  // the server renders the island too: only the browser keeps a board
  if (present || typeof document === "undefined") return;
  present = true;
  current = payload;
  bound = boundSessions(payload);
  seenDigest = payload.digest;
  seenLive = liveKey(liveIds);
}

/** The board the page draws now, or null before the island rendered. */
export function currentBoard(): SprintPayload | null {
  return current;
}

/** True when a card on the board is bound to this session (the poll writes its cells too). */
export function boardShows(asmId: string): boolean {
  return bound.has(asmId);
}

/**
 * Fetches the board and draws it if it differs; a fetch asked for while one runs makes exactly one more (never a
 * queue). True when the last fetch succeeded.
 */
export function refetchBoard(): Promise<boolean> {
  if (!present) return Promise.resolve(false);
  if (fetching) {
    again = true;
    return fetching;
  }
  fetching = (async () => {
    try {
      let ok = false;
      do {
        again = false;
        const res = await api("/api/sprint");
        ok = res.ok;
        if (!ok) continue;
        const next = await res.json() as SprintPayload;
        if (current !== null && sameBoard(current, next)) continue;
        current = next;
        bound = boundSessions(next);
        board.value = next;
      } while (again);
      return ok;
    } finally {
      fetching = null;
    }
  })();
  return fetching;
}

/**
 * After each poll of `/api/live`: fetches the board when its digest moved or the set of live ids changed. What
 * was seen is remembered only once the fetch succeeded, so a failed one is tried again on the next tick.
 */
export async function followBoard(digest: string | null, liveIds: readonly string[]): Promise<void> {
  if (!present) return;
  const live = liveKey(liveIds);
  if (digest === seenDigest && live === seenLive) return;
  if (await refetchBoard()) {
    seenDigest = digest;
    seenLive = live;
  }
}

/** The poll's cells of a card's session: status word, its tooltip and the unsure reason (no render). */
export function patchCardCells(asmId: string, status: string, unsureReason: string | null): void {
  if (!bound.has(asmId)) return;
  const s = liveStatus(status, unsureReason);
  setCell("cardtip", asmId, s.tip);
  setCell("unsure", asmId, s.unsure);
}

const notices = new Map<string, Signal<{ text: string; error: boolean } | null>>();

/** The last answer to a button on this card, as a sentence (kept across the board's renders). */
export function noticeOf(cardId: string): Signal<{ text: string; error: boolean } | null> {
  let n = notices.get(cardId);
  if (!n) {
    n = signal(null);
    notices.set(cardId, n);
  }
  return n;
}
