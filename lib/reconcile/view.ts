/**
 * The board as the page shows it (`GET /api/sprint`) and its digest (`board_digest` in `/api/live`). Pure: the
 * route gathers the facts (the board the server believes, the links, the sessions they point at, the claims) and
 * this shapes them; every card carries the five refusals of `refusals.ts`, so the page draws no rule of its own.
 *
 * The digest hashes what the server already believes (lists, positions, names and prompts, links, claims, the
 * board's problem): it costs no read of the outliner, and it moves whenever the page's board would look
 * different. It does not hash the live set: the page refetches when the live ids change too.
 * @module
 */
import { createHash } from "node:crypto";
import { DROPPED_TAG, parseCard } from "../board/grammar.ts";
import { type BoardRead, LIST_ROLES, type ListIds, type ListRole } from "../board/protocol.ts";
import { type Refusals, refusalsOf, type SessionStatus } from "./refusals.ts";
import type { ClaimView, Link } from "./types.ts";

/** An agent as the page lists it (the chooser of START and CONTINUE WITH). */
export interface AgentView {
  name: string;
  display: string;
  tag: string;
}

/** One card as the page shows it. */
export interface CardView {
  id: string;
  title: string;
  /** The first tag that is no agent's and not #dropped, or null. */
  project: string | null;
  /** The agent whose tag the card wears (its name, from agents.toml), or null. */
  agent: string | null;
  dropped: boolean;
  /** Every tag, as written. */
  tags: string[];
  /** The prompt: the card's children, one line each. */
  prompt: string[];
  /** The bound session, or null. */
  asm_id: string | null;
  status: SessionStatus | null;
  unsure_reason: string | null;
  claimed: boolean;
  /** Each button: null when it would act, else the sentence why not. */
  refusals: Refusals;
}

/** One of the three lists. */
export interface ListView {
  role: ListRole;
  /** Its id in the outliner. */
  id: string;
  cards: CardView[];
}

/** A driven session without a card (unnamed, or one the mint rule gives none). */
export interface NotOnPlanView {
  asm_id: string;
  agent: string;
  title: string | null;
  /** Why it has no card: the mint rule's word (`no title`, ...), or null when its card is on its way. */
  reason: string | null;
}

/** The body of `GET /api/sprint`. */
export interface SprintPayload {
  board: {
    backend: string;
    location: string;
    mode: "live" | "testing";
    /** When the board shown was read (ISO), or null when it never was. */
    read_at: string | null;
    /** One sentence when the board cannot be used or a pass gave up; null when all is well. */
    problem: string | null;
    /** The lists shown are the last ones read, from before the problem (a service backing off, a misread). */
    stale: boolean;
    lists: ListView[];
  };
  digest: string;
  not_on_plan: NotOnPlanView[];
  agents: AgentView[];
}

/** A session a link points at, as the ledger has it. */
export interface BoundSession {
  status: SessionStatus;
  unsure_reason: string | null;
  agent: string;
}

/** Everything the page's board is made from. */
export interface SprintFacts {
  backend: string;
  location: string;
  mode: "live" | "testing";
  listIds: ListIds;
  /** The board as the server believes it, or null (never read, or unusable). */
  read: BoardRead | null;
  problem: string | null;
  links: readonly Link[];
  sessions: ReadonlyMap<string, BoundSession>;
  /** Visible live sessions no card is bound to, each with the mint rule's reason (null: it may get a card). */
  unboundLive: readonly NotOnPlanView[];
  claims: ClaimView;
  agents: readonly (AgentView & { shared: string | null })[];
}

/** The digest of what the server believes of the board. */
export function boardDigest(
  read: BoardRead | null,
  links: readonly Link[],
  claims: ClaimView,
  problem: string | null,
): string {
  const lists = read === null
    ? null
    : LIST_ROLES.map((role) => read.lists[role].map((c) => [c.id, c.name, c.children]));
  const bindings = links.map((l) => [l.cardId, l.asmId, l.dropped, l.completed]).sort((a, b) =>
    String(a[0]).localeCompare(String(b[0]))
  );
  const body = JSON.stringify([
    lists,
    bindings,
    [...claims.claimed].sort(),
    [...claims.ending].sort(),
    problem,
  ]);
  return createHash("sha256").update(body).digest("hex").slice(0, 16);
}

/** The page's board. */
export function sprintView(f: SprintFacts): SprintPayload {
  const linkOf = new Map(f.links.map((l) => [l.cardId, l]));
  const agentOfTag = new Map(f.agents.map((a) => [a.tag.toLowerCase(), a]));
  const lists: ListView[] = LIST_ROLES.map((role) => ({
    role,
    id: f.listIds[role],
    cards: (f.read?.lists[role] ?? []).filter((c) => c.id !== null).map((card) => {
      const { title, tags } = parseCard(card.name);
      const agent = tags.map((t) => agentOfTag.get(t.toLowerCase())).find((a) => a !== undefined) ?? null;
      const project = tags.find((t) => t.toLowerCase() !== DROPPED_TAG && !agentOfTag.has(t.toLowerCase())) ??
        null;
      const link = linkOf.get(card.id!);
      const asmId = link?.asmId ?? null;
      const session = asmId === null ? undefined : f.sessions.get(asmId);
      const dropped = tags.some((t) => t.toLowerCase() === DROPPED_TAG) || (link?.dropped ?? false);
      const sessionAgent = session ? f.agents.find((a) => a.name === session.agent) : undefined;
      return {
        id: card.id!,
        title,
        project,
        agent: agent?.name ?? null,
        dropped,
        tags,
        prompt: [...card.children],
        asm_id: asmId,
        status: session?.status ?? null,
        unsure_reason: session?.unsure_reason ?? null,
        claimed: f.claims.claimed.has(card.id!),
        refusals: refusalsOf({
          list: role,
          dropped,
          asmId,
          status: session?.status ?? null,
          unsureReason: session?.unsure_reason ?? null,
          claimed: f.claims.claimed.has(card.id!),
          ending: f.claims.ending.has(card.id!),
          shared: sessionAgent?.shared ?? null,
        }),
      };
    }),
  }));
  return {
    board: {
      backend: f.backend,
      location: f.location,
      mode: f.mode,
      read_at: f.read === null ? null : new Date(f.read.readAt).toISOString(),
      problem: f.problem,
      stale: f.problem !== null && f.read !== null,
      lists,
    },
    digest: boardDigest(f.read, f.links, f.claims, f.problem),
    not_on_plan: [...f.unboundLive],
    agents: f.agents.map(({ name, display, tag }) => ({ name, display, tag })),
  };
}
