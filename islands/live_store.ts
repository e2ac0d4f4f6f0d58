/**
 * The browser's live cells: one signal per (field, session id). A cell is rendered by passing the signal itself
 * as a JSX child, so writing a new value patches that one Text node and no component renders again.
 * @module
 */
import { type Signal, signal } from "@preact/signals";

let cells = new Map<string, Signal<string>>();

/**
 * Runs one server-side draw with cells of its own, dropped after it: on the server the store would otherwise
 * outlive the request, so a page would draw what an earlier page left (a Jump hidden because an earlier draw
 * had no proven pane, which hydration then keeps) and the map would grow with every session ever drawn.
 */
export function drawnAlone<T>(draw: () => T): T {
  const kept = cells;
  cells = new Map();
  try {
    return draw();
  } finally {
    cells = kept;
  }
}

/**
 * The signal of one cell, holding `value`: a row rendered again (after a re-sort) brings its current value, which
 * must win over whatever the cell held before.
 */
export function cell(field: string, id: string, value: string): Signal<string> {
  const key = `${field}\u0000${id}`;
  let s = cells.get(key);
  if (!s) {
    s = signal(value);
    cells.set(key, s);
  } else if (s.peek() !== value) {
    s.value = value;
  }
  return s;
}

/** Writes a cell; returns true when the value changed. */
export function setCell(field: string, id: string, value: string): boolean {
  const s = cells.get(`${field}\u0000${id}`);
  if (s?.peek() === value) return false;
  cell(field, id, value);
  return true;
}

/** A cell's current value, or undefined when no row has it. */
export function cellValue(field: string, id: string): string | undefined {
  return cells.get(`${field}\u0000${id}`)?.peek();
}

/**
 * The signal of one cell, holding `value` only when no one wrote it yet: a component drawn again from its first
 * props (the session page's header) must not put back what the stream has since replaced.
 */
export function cellOnce(field: string, id: string, value: string): Signal<string> {
  return cells.get(`${field}\u0000${id}`) ?? cell(field, id, value);
}
