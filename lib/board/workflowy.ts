/**
 * The `workflowy` backend: the three lists are Workflowy nodes (config.toml `[board] lists`, node ids), a card is
 * a child node of one of them, its prompt the card's own children. Names are rich text: read through
 * `rich_text.ts` `plainOf` (unescaped once), written through `escapeText` (a new name) or `richWithPlain` (a name
 * asm changes: the person's formatting outside the change is kept).
 *
 * How a hand edit is never lost: the service has no conditional write, so every write first reads the ONE node
 * it touches (`GET /nodes/:id`) and compares its plain name and its list with what the read the write was planned
 * from saw; anything else is {@link BoardChanged} and nothing is written. What remains is the one round trip
 * between that read and the write. The stamp stands for the three lists as read (ids, plain names, prompts, in
 * order), and each write returns the stamp of the board as it left it.
 *
 * Traffic: a read is three requests (the lists' children), memoised 60 s, shared by callers that ask at the same
 * time; a card's prompt is read when the card is first seen or its node changed (`modifiedAt`, name), on a fresh
 * read once it is 5 minutes old, and right before START launches it ({@link WorkflowyOutliner.prompt}); prompts
 * are kept across reads, so a read that failed half way costs the rest only. An idle server's timer pass every
 * 20 s therefore reads the service about three times a minute. A node with no name (an empty bullet) is no card.
 * @module
 */
import { createHash } from "node:crypto";
import type { Clock } from "../lang/mod.ts";
import {
  BoardChanged,
  type BoardRead,
  BoardUnusable,
  LIST_ROLES,
  type ListIds,
  type ListRole,
  type Outliner,
  type Position,
  type Written,
} from "./protocol.ts";
import { MEMO_MS } from "./markdown.ts";
import { escapeText, plainOf, richWithPlain } from "./rich_text.ts";
import type { WorkflowyApi, WorkflowyNode } from "./workflowy_api.ts";

/** How old a prompt may be before a fresh read reads it again (a child edited alone may not move its card). */
export const PROMPT_REREAD_MS = 5 * 60_000;

/** Options of {@link workflowyOutliner}. */
export interface WorkflowyOptions {
  /** The three lists' node ids (config). */
  lists: ListIds;
  /** The account's API. */
  api: WorkflowyApi;
  /** Epoch ms; `Date.now` unless a test pins it. */
  clock?: Clock;
  /** How long a read is reused (default {@link MEMO_MS}). */
  memoMs?: number;
}

/** The Workflowy board: the protocol, a fresh prompt for START, and the memo's reset. */
export interface WorkflowyOutliner extends Outliner {
  readonly api: WorkflowyApi;
  /** A card's prompt read now (its children), for START. */
  prompt(cardId: string): Promise<string[]>;
  /** Drops the memo: the next read asks the service. */
  forget(): void;
}

/** One card as this outliner last saw it. */
interface Held {
  id: string;
  /** Its rich name as read (or as asm last wrote it). */
  rich: string;
  /** Its name unescaped once: what the protocol, the planner and the page see. */
  plain: string;
  children: string[];
}

interface Belief {
  lists: Record<ListRole, Held[]>;
  stamp: string;
  readAt: number;
}

/** A card's one line: a name is one line in Workflowy too (a line break would make child nodes). */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ");
}

/** The Workflowy board over `options.api`. */
export function workflowyOutliner(options: WorkflowyOptions): WorkflowyOutliner {
  const ids = options.lists;
  const api = options.api;
  const clock = options.clock ?? Date.now;
  const memoMs = options.memoMs ?? MEMO_MS;
  if (new Set(LIST_ROLES.map((r) => ids[r])).size !== LIST_ROLES.length) {
    throw new BoardUnusable("the board's three lists must be three different Workflowy nodes");
  }
  const location = `Workflowy lists ${LIST_ROLES.map((r) => ids[r]).join(", ")}`;
  let belief: Belief | null = null;
  let memoFresh = false;
  let reading: Promise<Belief> | null = null;
  /** Writes begun: a read that started before the latest one is returned, never believed. */
  let writes = 0;

  const stampOf = (lists: Record<ListRole, Held[]>) =>
    createHash("sha256").update(JSON.stringify(
      LIST_ROLES.map((r) => [ids[r], lists[r].map((c) => [c.id, c.plain, c.children])]),
    )).digest("hex");

  const view = (b: Belief): BoardRead => ({
    lists: Object.fromEntries(
      LIST_ROLES.map((
        r,
      ) => [r, b.lists[r].map((c) => ({ id: c.id, name: c.plain, children: [...c.children] }))]),
    ) as BoardRead["lists"],
    stamp: b.stamp,
    readAt: b.readAt,
  });

  /** A card's prompt as read, by card id: kept across reads (a read that failed half way keeps what it got). */
  const prompts = new Map<string, { rich: string; modifiedAt: number | null; lines: string[]; at: number }>();

  const childrenOf = async (id: string): Promise<string[]> =>
    ((await api.children(id)) ?? []).map((n) => plainOf(n.name));

  /** A card's prompt: the one kept while its node is unchanged (and, on a fresh read, younger than 5 min). */
  const promptOf = async (node: WorkflowyNode, fresh: boolean): Promise<string[]> => {
    const kept = prompts.get(node.id);
    const unchanged = kept !== undefined && kept.rich === node.name && node.modifiedAt !== null &&
      kept.modifiedAt === node.modifiedAt;
    // a child edited alone may leave its card's own time as it was: a fresh read (a wake, the page's refresh)
    // reads a prompt again once it is 5 minutes old
    if (unchanged && !(fresh && clock() - kept.at >= PROMPT_REREAD_MS)) return kept.lines;
    const lines = await childrenOf(node.id);
    prompts.set(node.id, { rich: node.name, modifiedAt: node.modifiedAt, lines, at: clock() });
    return lines;
  };

  const readNow = async (fresh: boolean): Promise<Belief> => {
    const lists = {} as Record<ListRole, Held[]>;
    const seen = new Set<string>();
    const nodes: Record<ListRole, WorkflowyNode[]> = {} as Record<ListRole, WorkflowyNode[]>;
    for (const role of LIST_ROLES) {
      const got = await api.children(ids[role]);
      if (got === null) {
        throw new BoardUnusable(
          `Workflowy has no node ${
            ids[role]
          }, the board's ${role} list (config.toml [board] lists.${role}); ` +
            `nothing was written`,
        );
      }
      nodes[role] = got;
    }
    for (const role of LIST_ROLES) {
      lists[role] = [];
      for (const node of nodes[role]) {
        if (seen.has(node.id)) continue; // a node is in one place; a list read mid-move may show it twice
        seen.add(node.id);
        const plain = oneLine(plainOf(node.name));
        // an empty bullet (an Enter typed in the list, a mirror the API shows without its name) is no card:
        // asm never plans or writes it, as the Markdown board skips an empty item
        if (plain.trim() === "") continue;
        lists[role].push({
          id: node.id,
          rich: node.name,
          plain,
          children: await promptOf(node, fresh),
        });
      }
    }
    return { lists, stamp: stampOf(lists), readAt: clock() };
  };

  const current = (basedOn: string): Belief => {
    if (belief === null || belief.stamp !== basedOn) {
      throw new BoardChanged(`the board in ${location} changed since the read this write was planned from`);
    }
    return belief;
  };

  const find = (b: Belief, cardId: string): { list: ListRole; index: number; held: Held } => {
    for (const list of LIST_ROLES) {
      const index = b.lists[list].findIndex((c) => c.id === cardId);
      if (index >= 0) return { list, index, held: b.lists[list][index] };
    }
    throw new BoardChanged(`no card ${cardId} in the board's lists any more; nothing was written`);
  };

  /** The card's node now, as the read saw it; a hand edit since (or a card gone) is BoardChanged. */
  const verify = async (at: { list: ListRole; held: Held }): Promise<WorkflowyNode> => {
    const node = await api.node(at.held.id);
    const moved = node !== null && typeof node.parentId === "string" &&
      node.parentId.toLowerCase() !== ids[at.list].toLowerCase();
    if (node === null || moved || oneLine(plainOf(node.name)) !== at.held.plain) {
      memoFresh = false;
      throw new BoardChanged(
        `the card ${at.held.id} was ${
          node === null ? "deleted" : "changed"
        } in Workflowy since asm read it; ` +
          `nothing was written`,
      );
    }
    return node;
  };

  /** A write: counted (a read under way when it lands is not believed), and the memo spent however it ends. */
  const writing = async <T>(body: () => Promise<T>): Promise<T> => {
    writes++;
    try {
      return await body();
    } finally {
      memoFresh = false;
    }
  };

  /** The belief after a write: restamped; the memo spent (the next read asks the service). */
  const wrote = (b: Belief): Written => {
    b.stamp = stampOf(b.lists);
    memoFresh = false;
    return { stamp: b.stamp };
  };

  const gone = (cardId: string) =>
    new BoardChanged(`the card ${cardId} was deleted in Workflowy since asm read it; nothing was written`);

  return {
    backend: "workflowy",
    location,
    api,
    forget() {
      memoFresh = false;
    },
    async read(readOptions = {}) {
      const age = belief ? clock() - belief.readAt : Infinity;
      if (!readOptions.fresh && memoFresh && belief && age >= 0 && age < memoMs) return view(belief);
      // callers asking at the same time share one read
      const writesBefore = writes;
      reading ??= readNow(readOptions.fresh === true).finally(() => {
        reading = null;
      });
      const read = await reading;
      // a write landed while this read was under way: what it saw may be older than the write, so it is not
      // the belief the next write is checked against, nor the memo (the write's caller reads again)
      if (writes === writesBefore) {
        belief = read;
        memoFresh = true;
      }
      return view(read);
    },
    async prompt(cardId) {
      const lines = await childrenOf(cardId);
      const held = belief && LIST_ROLES.flatMap((r) => belief!.lists[r]).find((c) => c.id === cardId);
      if (held) held.children = lines;
      return lines;
    },
    create(list, card, position, basedOn) {
      return writing(() => createCard(list, card, position, basedOn));
    },
    rename(cardId, name, basedOn) {
      return writing(() => renameCard(cardId, name, basedOn));
    },
    move(cardId, list, position, basedOn) {
      return writing(() => moveCard(cardId, list, position, basedOn));
    },
    identify(basedOn) {
      // every Workflowy node has its id from the moment it exists
      current(basedOn);
      return Promise.resolve({ stamp: basedOn, given: [] });
    },
  };

  async function createCard(
    list: ListRole,
    card: { name: string; children: string[] },
    position: Position,
    basedOn: string,
  ): Promise<Written & { id: string }> {
    const b = current(basedOn);
    const name = oneLine(card.name);
    const id = await api.create(ids[list], escapeText(name), position);
    const held: Held = { id, rich: escapeText(name), plain: name, children: [] };
    if (position === "top") b.lists[list].unshift(held);
    else b.lists[list].push(held);
    for (const line of card.children) {
      await api.create(id, escapeText(oneLine(line)), "bottom");
      held.children.push(oneLine(line));
    }
    return { id, ...wrote(b) };
  }

  async function renameCard(cardId: string, name: string, basedOn: string): Promise<Written> {
    const b = current(basedOn);
    const at = find(b, cardId);
    const plain = oneLine(name);
    if (at.held.plain === plain) return { stamp: basedOn };
    const node = await verify(at);
    // a line break stored in a name reads as a space: the rewrite starts from the name as it reads
    const rich = richWithPlain(node.name.replace(/[\r\n]+/g, " "), plain);
    if (!(await api.rename(cardId, rich))) throw gone(cardId);
    at.held.rich = rich;
    at.held.plain = plain;
    return wrote(b);
  }

  async function moveCard(
    cardId: string,
    list: ListRole,
    position: Position,
    basedOn: string,
  ): Promise<Written> {
    const b = current(basedOn);
    const at = find(b, cardId);
    const cards = b.lists[list];
    const already = at.list === list && at.index === (position === "top" ? 0 : cards.length - 1);
    if (already) return { stamp: basedOn };
    await verify(at);
    if (!(await api.move(cardId, ids[list], position as Position))) throw gone(cardId);
    b.lists[at.list].splice(at.index, 1);
    if (position === "top") b.lists[list].unshift(at.held);
    else b.lists[list].push(at.held);
    return wrote(b);
  }
}
