/**
 * Claims: every button takes one on its card BEFORE it moves anything, and the planner skips a claimed card in
 * every pass. Without them the reconciler undoes a click a second later (measured twice in production: START's
 * card dropped before its session registered; END's card restored while the killed session was still in the
 * liveness snapshot).
 *
 * Memory only, on purpose: a restart mid-launch forgets the claim and the card is tidied a minute later, a much
 * better failure than a claim outliving its process. What survives a restart is the planner's own refusal to
 * restore a card whose session is ended / lost / killed.
 *
 * A claim ends in one of three ways: `release()` (every failure path, and DONE at its end); END's
 * `holdUntilGone(asmId)` (held until the killed session has left the live set); START / RESUME / CONTINUE's
 * `holdUntilLive(token)` (held until the launch has registered a run, or the card is bound to a session in the
 * live set: the launch registers 10-15 s after the click). A registered launch ends the hold even when its session
 * is already gone again: a window closed seconds after a RESUME must drop the card on the next pass, not after the
 * longest hold. The sweep calls {@link Claims.settle} with each live set it reads. A hold ends at the latest
 * after `maxHoldMs`, so a launch that never registers or a session that never leaves cannot pin a card forever.
 * @module
 */
import type { Clock } from "../lang/mod.ts";
import type { ClaimView } from "./types.ts";

/** The five buttons, by the claim each takes. */
export type ClaimKind = "start" | "resume" | "continue" | "end" | "done";

/** A card already has a claim: a second button on it waits for the first. */
export class CardClaimed extends Error {
  override name = "CardClaimed";
}

/** One claim, as the button that took it holds it. */
export interface CardClaim {
  readonly cardId: string;
  readonly kind: ClaimKind;
  /** Lets go now (every failure path; DONE at its end). A second call, or a call after a hold ended, is a no-op. */
  release(): void;
  /** END, once the card is filed: held until `asmId` has left the live set. */
  holdUntilGone(asmId: string): void;
  /**
   * START / RESUME / CONTINUE, once launched: held until the launch `token` has registered a run, or the card is
   * bound to a session in the live set.
   */
  holdUntilLive(token?: string): void;
}

/** Options of {@link Claims}. */
export interface ClaimsOptions {
  /** The clock, for the longest hold; tests pass a fake one. */
  now?: Clock;
  /** The longest a hold lasts (default 150 s: a launch unmatched after 120 s has expired). */
  maxHoldMs?: number;
}

/** What a live set must answer: is this session in it? (A `Set` or a `Map` of asm ids.) */
export interface LiveIds {
  has(asmId: string): boolean;
}

type Hold =
  | { until: "released" }
  | { until: "gone"; asmId: string; since: number }
  | { until: "live"; since: number; token: string | null };

interface Entry {
  cardId: string;
  kind: ClaimKind;
  hold: Hold | null;
}

function holdIsOver(
  h: Hold,
  cardId: string,
  live: LiveIds,
  boundTo: (cardId: string) => string | null,
  registered: (token: string) => boolean,
): boolean {
  if (h.until === "gone") return !live.has(h.asmId);
  if (h.until === "live") {
    if (h.token !== null && registered(h.token)) return true;
    const asmId = boundTo(cardId);
    return asmId !== null && live.has(asmId);
  }
  return true;
}

/** The outstanding claims of one server. */
export class Claims {
  #entries = new Map<string, Entry>();
  #now: Clock;
  #maxHoldMs: number;

  constructor(options: ClaimsOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxHoldMs = options.maxHoldMs ?? 150_000;
  }

  /**
   * Claims `cardId` for a button, before it moves anything. Throws {@link CardClaimed} when another button holds
   * the card.
   */
  claim(cardId: string, kind: ClaimKind): CardClaim {
    const held = this.#entries.get(cardId);
    if (held) {
      throw new CardClaimed(
        `another action (${held.kind.toUpperCase()}) is still under way on this card; wait a few seconds and try again`,
      );
    }
    const entry: Entry = { cardId, kind, hold: null };
    this.#entries.set(cardId, entry);
    // a handle only ever ends its own claim: after it ended, the card may carry a newer claim
    const end = () => {
      if (this.#entries.get(cardId) === entry) this.#entries.delete(cardId);
      entry.hold = { until: "released" };
    };
    const hold = (h: Hold) => {
      if (this.#entries.get(cardId) === entry) entry.hold = h;
    };
    return {
      cardId,
      kind,
      release: end,
      holdUntilGone: (asmId) => hold({ until: "gone", asmId, since: this.#now() }),
      holdUntilLive: (token) => hold({ until: "live", since: this.#now(), token: token ?? null }),
    };
  }

  /**
   * Ends the holds that are over, given the live set just read, each card's bound session (`boundTo`, from the
   * links) and whether a launch token has registered a run (`registered`, from the ledger): an END's once its
   * session is gone from `live`, a launch's once its launch registered or its card is bound to a session in
   * `live`, any hold older than `maxHoldMs`. Returns the cards released.
   */
  settle(
    live: LiveIds,
    boundTo: (cardId: string) => string | null,
    registered: (token: string) => boolean = () => false,
  ): string[] {
    const now = this.#now();
    const released: string[] = [];
    for (const entry of this.#entries.values()) {
      const h = entry.hold;
      if (h === null || h.until === "released") continue;
      if (now - h.since >= this.#maxHoldMs || holdIsOver(h, entry.cardId, live, boundTo, registered)) {
        released.push(entry.cardId);
      }
    }
    for (const cardId of released) this.#entries.delete(cardId);
    return released;
  }

  /** The claims as the planner and the drop's last-moment re-check read them. */
  view(): ClaimView {
    const claimed = new Set<string>();
    const ending = new Set<string>();
    for (const e of this.#entries.values()) {
      claimed.add(e.cardId);
      if (e.kind === "end") ending.add(e.cardId);
    }
    return { claimed, ending };
  }
}
