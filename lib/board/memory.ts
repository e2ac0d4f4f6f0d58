/**
 * An outliner held in memory: the protocol's behaviour without a file or a remote (stamps, refusals of stale
 * writes, ids for id-less cards), and a record of every call in order. Tests of the planner's shell and of the
 * buttons hand it in to assert write orders; a person never uses it.
 * @module
 */
import {
  BoardChanged,
  type BoardRead,
  type Card,
  LIST_ROLES,
  type ListRole,
  type Outliner,
  type Position,
  type Written,
} from "./protocol.ts";

/** One call the memory outliner received. */
export type OutlinerCall =
  | { op: "read"; fresh: boolean }
  | { op: "create"; list: ListRole; name: string; children: string[]; position: Position; id: string }
  | { op: "rename"; id: string; name: string }
  | { op: "move"; id: string; list: ListRole; position: Position }
  | { op: "identify"; ids: string[] };

/** The memory outliner, with its call record and a way to make a hand edit. */
export interface MemoryOutliner extends Outliner {
  /** Every call that did something, in order (a write refused as stale is not recorded: it changed nothing). */
  calls: OutlinerCall[];
  /** The board as it is now. */
  lists: Record<ListRole, Card[]>;
  /** A change made "by hand": the stamp moves, so a write planned before it is refused. */
  edit(change: (lists: Record<ListRole, Card[]>) => void): void;
}

/** A memory outliner holding `lists` (copied). */
export function memoryOutliner(
  initial: Partial<Record<ListRole, Card[]>> = {},
  options: { location?: string; now?: () => number } = {},
): MemoryOutliner {
  const lists = Object.fromEntries(
    LIST_ROLES.map((role) => [role, (initial[role] ?? []).map((c) => ({ ...c, children: [...c.children] }))]),
  ) as Record<ListRole, Card[]>;
  let version = 0;
  let nextId = 1;
  const now = options.now ?? Date.now;
  const stamp = () => `m${version}`;
  const changed = () => {
    version++;
  };
  const check = (basedOn: string) => {
    if (basedOn !== stamp()) {
      throw new BoardChanged("the board changed since it was read; nothing was written");
    }
  };
  const find = (id: string): { list: ListRole; index: number } => {
    for (const list of LIST_ROLES) {
      const index = lists[list].findIndex((c) => c.id === id);
      if (index >= 0) return { list, index };
    }
    throw new BoardChanged(`no card ${id} on the board any more; nothing was written`);
  };
  const self: MemoryOutliner = {
    backend: "memory",
    location: options.location ?? "memory",
    calls: [],
    lists,
    edit(change) {
      change(lists);
      changed();
    },
    read(options = {}): Promise<BoardRead> {
      self.calls.push({ op: "read", fresh: options.fresh === true });
      const copy = Object.fromEntries(
        LIST_ROLES.map((role) => [role, lists[role].map((c) => ({ ...c, children: [...c.children] }))]),
      ) as Record<ListRole, Card[]>;
      return Promise.resolve({ lists: copy, stamp: stamp(), readAt: now() });
    },
    create(list, card, position, basedOn): Promise<Written & { id: string }> {
      check(basedOn);
      const id = `mem-${nextId++}`;
      const made = { id, name: card.name, children: [...card.children] };
      if (position === "top") lists[list].unshift(made);
      else lists[list].push(made);
      self.calls.push({ op: "create", list, name: card.name, children: [...card.children], position, id });
      changed();
      return Promise.resolve({ id, stamp: stamp() });
    },
    rename(id, name, basedOn): Promise<Written> {
      check(basedOn);
      const at = find(id);
      lists[at.list][at.index].name = name;
      self.calls.push({ op: "rename", id, name });
      changed();
      return Promise.resolve({ stamp: stamp() });
    },
    move(id, list, position, basedOn): Promise<Written> {
      check(basedOn);
      const at = find(id);
      const [card] = lists[at.list].splice(at.index, 1);
      if (position === "top") lists[list].unshift(card);
      else lists[list].push(card);
      self.calls.push({ op: "move", id, list, position });
      changed();
      return Promise.resolve({ stamp: stamp() });
    },
    identify(basedOn) {
      check(basedOn);
      const given: { list: ListRole; index: number; id: string }[] = [];
      for (const list of LIST_ROLES) {
        lists[list].forEach((card, index) => {
          if (card.id !== null) return;
          card.id = `mem-${nextId++}`;
          given.push({ list, index, id: card.id });
        });
      }
      self.calls.push({ op: "identify", ids: given.map((g) => g.id) });
      if (given.length) changed();
      return Promise.resolve({ stamp: stamp(), given });
    },
  };
  return self;
}
