/**
 * The board as the page draws it, decided from `GET /api/sprint`'s payload (lib/reconcile `view.ts`): the lanes,
 * a card's status words, its prompt folded to one line, its five buttons with their refusals, why a session is
 * not on the plan, and the empty board's example. Pure; the server render and the browser's island use the same
 * functions, so the first paint and every later one say the same thing. The page draws no rule of its own: every
 * refusal is the API's sentence.
 * @module
 */
import type { CardView, ListView, NotOnPlanView, SprintPayload } from "../reconcile/view.ts";
import { statusWord } from "./words.ts";

/** The three lanes, in the board's order, with the words on their headings. */
export const LANES: readonly { role: ListView["role"]; label: string }[] = [
  { role: "plan", label: "SPRINT PLAN" },
  { role: "process", label: "IN PROCESS" },
  { role: "complete", label: "COMPLETE" },
];

/** A card button: its refusal key, the word on it, and the route's last segment. */
export type CardButton = "start" | "resume" | "continue" | "done" | "end";

/** The five buttons in the order a card shows them, with their words. */
export const CARD_BUTTONS: readonly { button: CardButton; label: string; does: string }[] = [
  { button: "start", label: "START", does: "start this card's prompt with an agent you choose" },
  { button: "resume", label: "RESUME", does: "reopen its session with the same agent and session id" },
  { button: "continue", label: "CONTINUE WITH", does: "hand its work to another agent, naming its session" },
  { button: "done", label: "DONE", does: "file this card to COMPLETE" },
  { button: "end", label: "END", does: "stop its session, close its window and file the card to COMPLETE" },
];

/** One button as a card draws it: refused buttons stay pressable, and their sentence is the tooltip. */
export interface ButtonView {
  button: CardButton;
  label: string;
  /** The API's sentence why it would not act, or null. */
  refusal: string | null;
  /** The tooltip: the refusal, else what the button does. */
  tip: string;
}

/** The five buttons of a card. */
export function cardButtons(card: Pick<CardView, "refusals">): ButtonView[] {
  return CARD_BUTTONS.map(({ button, label, does }) => {
    const refusal = card.refusals[button];
    return { button, label, refusal, tip: refusal ?? does };
  });
}

/** The route a card button posts to. */
export function cardButtonPath(cardId: string, button: CardButton): string {
  return `/api/sprint/${encodeURIComponent(cardId)}/${button}`;
}

/** A card's status as the page reads it: the word, its tooltip, and the reason when asm is unsure. */
export interface CardStatus {
  word: string;
  tip: string;
  /** Why asm cannot prove the session's process ("" when it can, or when the card has no session). */
  unsure: string;
}

/**
 * The bound session's status in the same words as the Sessions table (`statusWord`): UNSURE with its reason where
 * asm cannot prove the process. A card without a session has no status; a session the ledger does not know
 * reads UNKNOWN.
 */
export function cardStatus(card: Pick<CardView, "asm_id" | "status" | "unsure_reason">): CardStatus | null {
  if (card.asm_id === null) return null;
  if (card.status === null) return { word: "UNKNOWN", tip: "asm has no record of its session", unsure: "" };
  return liveStatus(card.status, card.unsure_reason);
}

/** A status from the live poll, as a card shows it. */
export function liveStatus(status: string, unsureReason: string | null): CardStatus {
  const { word, tip } = statusWord(status, null, unsureReason);
  const unsure = (status === "live" || status === "starting") && unsureReason ? unsureReason : "";
  return { word, tip, unsure };
}

/** A prompt folded to one line: the first line shown, every line on demand. */
export interface PromptView {
  /** The first line with text ("" when the card has no prompt). */
  first: string;
  /** The lines after it, as written (blank ones included). */
  rest: string[];
}

/** Folds a card's prompt: the first line that has text, then the rest. */
export function promptView(lines: readonly string[]): PromptView {
  const at = lines.findIndex((l) => l.trim() !== "");
  if (at < 0) return { first: "", rest: [] };
  const rest = lines.slice(at + 1);
  while (rest.length > 0 && rest[rest.length - 1].trim() === "") rest.pop();
  return { first: lines[at].trim(), rest };
}

/** Why a driven session has no card, as a sentence (the mint rule's word, lib/ledger `mint.ts`). */
export function notOnPlanWhy(reason: NotOnPlanView["reason"]): string {
  switch (reason) {
    case null:
      return "its card comes with the next pass";
    case "no title":
      return "no title yet: it gets a card once it is named";
    case "no typed prompt":
      return "nobody has typed a prompt in it yet";
    case "not known to be interactive":
      return "asm cannot tell that a person drives it";
    case "sub-agent":
      return "a sub-agent: its parent's card covers it";
    case "automation thread":
      return "an automation thread, not a person's session";
    case "headless":
      return "a headless run, not a person's session";
    case "harness folder":
      return "it runs in a harness folder";
    default:
      return String(reason);
  }
}

/** True when none of the three lists holds a card. */
export function boardIsEmpty(payload: SprintPayload): boolean {
  return payload.board.lists.every((l) => l.cards.length === 0);
}

/**
 * The example an empty board shows a new person: the three headings with the list ids this board uses, one card
 * with a project and an agent tag, and its prompt.
 */
export function boardExample(payload: Pick<SprintPayload, "board" | "agents">): string {
  const idOf = (role: ListView["role"]) =>
    payload.board.lists.find((l) => l.role === role)?.id ?? `asm-${role}`;
  // an agent's own tag when asm knows one (no agent is named here: agents.toml names them)
  const tag = payload.agents[0]?.tag;
  return [
    `## SPRINT PLAN ^${idOf("plan")}`,
    `- Fix the login redirect #webapp${tag ? ` #${tag}` : ""}`,
    "  - The prompt: one or more lines, indented under the card.",
    `## IN PROCESS ^${idOf("process")}`,
    `## COMPLETE ^${idOf("complete")}`,
  ].join("\n");
}

/** The payload without what changes when nothing shown does (when it was read, the digest). */
function shown(payload: SprintPayload): unknown {
  return { ...payload, digest: null, board: { ...payload.board, read_at: null } };
}

/** True when two payloads draw the same board: a refetch that brings nothing new renders nothing. */
export function sameBoard(a: SprintPayload, b: SprintPayload): boolean {
  return JSON.stringify(shown(a)) === JSON.stringify(shown(b));
}

/** The set of live ids as one comparable string. */
export function liveKey(ids: Iterable<string>): string {
  return [...ids].sort().join(",");
}

/** Every session a card on the board is bound to. */
export function boundSessions(payload: SprintPayload): Set<string> {
  const out = new Set<string>();
  for (const list of payload.board.lists) {
    for (const card of list.cards) if (card.asm_id !== null) out.add(card.asm_id);
  }
  return out;
}
