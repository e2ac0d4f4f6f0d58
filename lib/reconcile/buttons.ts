/**
 * The card buttons START, RESUME, CONTINUE WITH and DONE (END is `end.ts`: one service for every door). Each
 * takes a claim on its card BEFORE it moves anything (the planner skips a claimed card in every pass) and gives
 * it back on every failure path, and writes in the spec's order EXACTLY:
 *
 * | Button        | Order                                                                                      |
 * | ------------- | ------------------------------------------------------------------------------------------ |
 * | START         | claim, tag with the agent, move to IN PROCESS, bind, launch (a failure releases, unbinds)  |
 * | RESUME        | claim, untag #dropped, move, rebind, resume the SAME session id                            |
 * | CONTINUE WITH | claim, re-tag to the new agent, untag, move, REBIND, launch with the predecessor named     |
 * | DONE          | claim, untag, move to COMPLETE, unbind, release                                            |
 *
 * A write that would change nothing (a tag the card already wears, a card already where it goes) is not made.
 * Refusals are `refusals.ts`' sentences, the ones the page shows. A launch goes through lib/launch's one path
 * (`launchSession`, `resumeSession`, `continueWith`) with the card's prompt (its children, one line each) and
 * its title as the session's name; its launch row names the card (`sprint_node`), so the session that
 * registers is bound to the card by the next pass, and the claim is held until then (`holdUntilLive`).
 * @module
 */
import {
  type BoardRead,
  DROPPED_TAG,
  LIST_ROLES,
  type ListRole,
  parseCard,
  withFreshBoard,
  withoutTag,
  withTagOf,
} from "../board/mod.ts";
import type { AgentConfig } from "../agents/mod.ts";
import {
  bindCard,
  boardLinks,
  isoAt,
  linkedSessions,
  linkOf,
  markCompleted,
  markDropped,
  unbindCard,
} from "../ledger/mod.ts";
import {
  type ActionDeps,
  ActionRefused,
  continueWith,
  type LaunchRecord,
  launchSession,
  resumeSession,
  sharedRefusal,
} from "../launch/mod.ts";
import { type CardClaim, CardClaimed, type ClaimKind } from "./claims.ts";
import type { BoardDeps } from "./deps.ts";
import type { Link } from "./types.ts";
import { type Button, refusalsOf, type SessionStatus } from "./refusals.ts";
import { movedLocally } from "./sweep.ts";

/** What a button needs: the board's dependencies, lib/launch's, and where a card's project is. */
export interface ButtonDeps extends BoardDeps {
  /** The launches (lib/launch `actionDeps` in the server; a test hands in a fake terminal host). */
  actions: ActionDeps;
  /** The folder a card wearing this project tag starts in, or null when asm knows none. */
  folderOf(projectTag: string): string | null;
  /** Something the board shows changed: a pass soon (the wake coalescer). */
  wake(): void;
}

/** A card as a button finds it on a fresh read. */
export interface FoundCard {
  id: string;
  list: ListRole;
  name: string;
  title: string;
  tags: string[];
  children: string[];
  link: Link | null;
}

/** What a card button's request may carry: ids and names, never text (the prompt is the card's own). */
export interface CardRequest {
  /** START (optional: else the card's agent tag) and CONTINUE WITH (required): an agent's name. */
  agent?: unknown;
  /** Absent, null or "" withholds the model flag. */
  model?: unknown;
  /** Tests on scratch homes only (lib/launch honours it in testing mode only). */
  bypass_hook_trust?: unknown;
}

/** What START, RESUME and CONTINUE WITH answer: the card and the launch. */
export interface CardLaunch {
  card: string;
  launch: LaunchRecord;
}

/** What DONE answers. */
export interface CardDone {
  card: string;
  list: "complete";
}

/** The card on this read, or null. */
export function findCard(read: BoardRead, cardId: string): Omit<FoundCard, "link"> | null {
  for (const list of LIST_ROLES) {
    const card = read.lists[list].find((c) => c.id === cardId);
    if (card) {
      const { title, tags } = parseCard(card.name);
      return { id: cardId, list, name: card.name, title, tags, children: [...card.children] };
    }
  }
  return null;
}

/** The card on a fresh read with its link, or an `unknown` refusal. */
async function freshCard(deps: BoardDeps, cardId: string): Promise<FoundCard> {
  const read = await deps.outliner.read({ fresh: true });
  const card = findCard(read, cardId);
  if (!card) throw new ActionRefused("unknown", `there is no card ${cardId} on the board`);
  return { ...card, link: linkOf(deps.ledger, cardId) };
}

/** The button's refusal of this card now, thrown as a `conflict`. */
function refuseUnless(deps: ButtonDeps, card: FoundCard, button: Button): void {
  const asmId = card.link?.asmId ?? null;
  const row = asmId === null ? null : deps.ledger.session(asmId);
  const seen = asmId === null ? undefined : linkedSessions(deps.ledger).get(asmId);
  const agent = row ? deps.actions.agents.find((a) => a.name === row.agent) : undefined;
  const claims = deps.claims.view();
  const refusal = refusalsOf({
    list: card.list,
    dropped: card.tags.some((t) => t.toLowerCase() === DROPPED_TAG) || (card.link?.dropped ?? false),
    asmId,
    status: (row?.status ?? null) as SessionStatus | null,
    unsureReason: seen?.unsure_reason ?? null,
    claimed: claims.claimed.has(card.id),
    ending: claims.ending.has(card.id),
    shared: agent && row ? sharedRefusal(agent, row) : null,
  })[button];
  if (refusal !== null) throw new ActionRefused("conflict", refusal);
}

/** Claims the card for `kind`, or refuses with the sentence. */
function claim(deps: BoardDeps, cardId: string, kind: ClaimKind): CardClaim {
  try {
    return deps.claims.claim(cardId, kind);
  } catch (err) {
    if (err instanceof CardClaimed) throw new ActionRefused("conflict", err.message);
    throw err;
  }
}

/**
 * Rewrites the card's line and moves it (END files its card with it too), on a fresh read, under the board lock: `rewrites` are applied one
 * write each, in order (a rewrite that changes nothing is skipped), then the move (skipped when the card is
 * already at the top of `to`). A hand edit between the read and a write: all again from a fresh read.
 */
export async function rewriteAndMove(
  deps: BoardDeps,
  cardId: string,
  rewrites: readonly ((name: string) => string)[],
  to: ListRole,
): Promise<void> {
  await deps.lock.run(() =>
    withFreshBoard(deps.outliner, async (read) => {
      const at = findCard(read, cardId);
      if (!at) throw new ActionRefused("conflict", `the card ${cardId} is no longer on the board`);
      const lists = Object.fromEntries(
        LIST_ROLES.map((r) => [r, read.lists[r].map((c) => ({ ...c }))]),
      ) as BoardRead["lists"];
      let stamp = read.stamp;
      let name = at.name;
      for (const rewrite of rewrites) {
        const next = rewrite(name);
        if (next === name) continue;
        stamp = (await deps.outliner.rename(cardId, next, stamp)).stamp;
        name = next;
        lists[at.list].find((c) => c.id === cardId)!.name = name;
      }
      if (!(at.list === to && read.lists[to][0]?.id === cardId)) {
        stamp = (await deps.outliner.move(cardId, to, "top", stamp)).stamp;
        movedLocally(lists, cardId, to, "top");
      }
      deps.memo.believe({ lists, stamp, readAt: read.readAt }, boardLinks(deps.ledger));
    }, { tries: deps.tries, next: "nothing more was written; press the button again once the file is still" })
  );
}

function agentTags(deps: ButtonDeps): string[] {
  return deps.actions.agents.map((a) => a.tag);
}

/** The agent a card starts with: the request's, else the one whose tag the card wears. */
function startingAgent(deps: ButtonDeps, card: FoundCard, asked: unknown): AgentConfig {
  if (asked !== undefined && asked !== null && asked !== "") {
    const agent = deps.actions.agents.find((a) => a.name === asked);
    if (!agent) {
      throw new ActionRefused(
        "invalid",
        `"${asked}" is not an agent asm knows; asm knows ${
          deps.actions.agents.map((a) => a.name).join(", ")
        }`,
      );
    }
    return agent;
  }
  const worn = deps.actions.agents.find((a) =>
    card.tags.some((t) => t.toLowerCase() === a.tag.toLowerCase())
  );
  if (!worn) {
    throw new ActionRefused(
      "invalid",
      `the card wears no agent's tag; choose an agent (${deps.actions.agents.map((a) => a.name).join(", ")})`,
    );
  }
  return worn;
}

/** The folder a card starts in: its project tag's, from config or the ledger's projects. */
function folderOfCard(deps: ButtonDeps, card: FoundCard): string {
  const family = new Set([...agentTags(deps), DROPPED_TAG].map((t) => t.toLowerCase()));
  const project = card.tags.find((t) => !family.has(t.toLowerCase()));
  if (project === undefined) {
    throw new ActionRefused(
      "conflict",
      "the card names no project (a #project tag), so asm does not know which folder to start it in",
    );
  }
  const folder = deps.folderOf(project.toLowerCase());
  if (folder === null) {
    throw new ActionRefused(
      "conflict",
      `asm knows no folder for #${project}: no session has run in a project of that name yet; add ` +
        `folders = { ${project.toLowerCase()} = "/path/to/it" } to [board] in config.toml`,
    );
  }
  return folder;
}

/** The model as the request gives it: absent, null or "" withholds the flag (never a guessed default). */
function modelOf(asked: unknown): string | null {
  if (asked === undefined || asked === null || asked === "") return null;
  if (typeof asked !== "string") throw new ActionRefused("invalid", "model must be a string");
  return asked;
}

/** START: claim, tag with the agent, move to IN PROCESS, bind, launch; a failure releases and unbinds. */
export async function startCard(
  deps: ButtonDeps,
  cardId: string,
  request: CardRequest = {},
): Promise<CardLaunch> {
  const card = await freshCard(deps, cardId);
  refuseUnless(deps, card, "start");
  const agent = startingAgent(deps, card, request.agent);
  const folder = folderOfCard(deps, card);
  const model = modelOf(request.model);
  const held = claim(deps, cardId, "start");
  let bound = false;
  try {
    // the prompt as the card has it now (a remote backend's reads may reuse a card's children), read BEFORE any
    // write: a read that fails leaves the card as it was
    const prompt = deps.outliner.prompt ? await deps.outliner.prompt(cardId) : card.children;
    // one tag write: the agent's tag, and no #dropped (a card dropped after a START that never registered)
    const tag = (name: string) => withoutTag(withTagOf(name, agentTags(deps), agent.tag), DROPPED_TAG);
    await rewriteAndMove(deps, cardId, [tag], "process");
    bindCard(deps.ledger, {
      cardId,
      asmId: null,
      origin: "start",
      title: card.title,
      at: isoAt(deps.now?.()),
    });
    bound = true;
    const launch = await launchSession(deps.actions, {
      agent: agent.name,
      folder,
      prompt: prompt.join("\n"),
      name: card.title,
      model,
      sprint_node: cardId,
      bypass_hook_trust: request.bypass_hook_trust === true,
    });
    held.holdUntilLive(launch.token);
    relink(deps);
    deps.log({ what: "board: START", card: cardId, agent: agent.name, token: launch.token });
    deps.wake();
    return { card: cardId, launch };
  } catch (err) {
    held.release();
    if (bound) unbindCard(deps.ledger, cardId);
    relink(deps);
    throw err;
  }
}

/**
 * RESUME: claim, untag #dropped, move to IN PROCESS, rebind, resume the SAME session with the SAME agent (the
 * model is a choice; no model = the flag withheld). A failure releases the claim; the next pass drops the card
 * again if its session did not come back.
 */
export async function resumeCard(
  deps: ButtonDeps,
  cardId: string,
  request: CardRequest = {},
): Promise<CardLaunch> {
  const card = await freshCard(deps, cardId);
  refuseUnless(deps, card, "resume");
  const asmId = card.link!.asmId!;
  const model = modelOf(request.model);
  const held = claim(deps, cardId, "resume");
  try {
    await rewriteAndMove(deps, cardId, [(name) => withoutTag(name, DROPPED_TAG)], "process");
    bindCard(deps.ledger, { cardId, asmId, origin: "resume", title: card.title, at: isoAt(deps.now?.()) });
    const launch = await resumeSession(deps.actions, asmId, {
      model,
      sprint_node: cardId,
      bypass_hook_trust: request.bypass_hook_trust === true,
    });
    held.holdUntilLive(launch.token);
    relink(deps);
    deps.log({ what: "board: RESUME", card: cardId, asm_id: asmId, token: launch.token });
    deps.wake();
    return { card: cardId, launch };
  } catch (err) {
    held.release();
    relink(deps);
    throw err;
  }
}

/**
 * CONTINUE WITH: claim, re-tag to the new agent, untag #dropped, move to IN PROCESS, REBIND (to the session the
 * launch makes), launch the other agent with a prompt naming the predecessor. A failure releases the claim and
 * gives the card its predecessor's binding back (RESUME stays possible).
 */
export async function continueCard(
  deps: ButtonDeps,
  cardId: string,
  request: CardRequest = {},
): Promise<CardLaunch> {
  const card = await freshCard(deps, cardId);
  refuseUnless(deps, card, "continue");
  const before = card.link!;
  const predecessor = deps.ledger.session(before.asmId!);
  if (typeof request.agent !== "string" || request.agent === "") {
    throw new ActionRefused("invalid", "name the agent that takes over");
  }
  const agent = startingAgent(deps, card, request.agent);
  if (predecessor && agent.name === predecessor.agent) {
    throw new ActionRefused(
      "invalid",
      `continue-with hands the work to another agent; to reopen this ${agent.display} session, RESUME it`,
    );
  }
  const model = modelOf(request.model);
  const held = claim(deps, cardId, "continue");
  let rebound = false;
  try {
    // read before any write, as START does
    const prompt = deps.outliner.prompt ? await deps.outliner.prompt(cardId) : card.children;
    await rewriteAndMove(
      deps,
      cardId,
      [(name) => withTagOf(name, agentTags(deps), agent.tag), (name) => withoutTag(name, DROPPED_TAG)],
      "process",
    );
    bindCard(deps.ledger, {
      cardId,
      asmId: null,
      origin: "continue",
      title: card.title,
      at: isoAt(deps.now?.()),
    });
    rebound = true;
    const launch = await continueWith(deps.actions, before.asmId!, {
      agent: agent.name,
      prompt: prompt.join("\n"),
      model,
      name: card.title,
      sprint_node: cardId,
      bypass_hook_trust: request.bypass_hook_trust === true,
    });
    held.holdUntilLive(launch.token);
    relink(deps);
    deps.log({ what: "board: CONTINUE WITH", card: cardId, from: before.asmId, agent: agent.name });
    deps.wake();
    return { card: cardId, launch };
  } catch (err) {
    held.release();
    if (rebound) restoreLink(deps, before);
    relink(deps);
    throw err;
  }
}

/** Puts a link back as it was (a CONTINUE WITH that could not launch). */
function restoreLink(deps: BoardDeps, link: Link): void {
  const at = isoAt(deps.now?.());
  bindCard(deps.ledger, {
    cardId: link.cardId,
    asmId: link.asmId,
    origin: (link.origin ?? "start") as "start",
    syncedTitle: link.syncedTitle,
    at,
  });
  if (link.dropped) markDropped(deps.ledger, link.cardId, at);
  if (link.completed) markCompleted(deps.ledger, link.cardId, at);
}

/** The memo learns the links just written (the digest hashes them). */
function relink(deps: BoardDeps): void {
  deps.memo.links = boardLinks(deps.ledger);
}

/** DONE: claim, untag #dropped, move to COMPLETE, unbind, release. Refused while the card's session is open. */
export async function doneCard(deps: ButtonDeps, cardId: string): Promise<CardDone> {
  const card = await freshCard(deps, cardId);
  refuseUnless(deps, card, "done");
  const held = claim(deps, cardId, "done");
  try {
    await rewriteAndMove(deps, cardId, [(name) => withoutTag(name, DROPPED_TAG)], "complete");
    unbindCard(deps.ledger, cardId);
    relink(deps);
    deps.log({ what: "board: DONE", card: cardId, asm_id: card.link?.asmId ?? null });
    deps.wake();
    return { card: cardId, list: "complete" };
  } finally {
    held.release();
  }
}
