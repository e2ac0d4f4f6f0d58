/**
 * The browser's live cells: one signal per (field, session id). A cell is rendered by passing the signal itself
 * as a JSX child, so writing a new value patches that one Text node and no component renders again.
 * @module
 */
import { type Signal, signal } from "@preact/signals";

const cells = new Map<string, Signal<string>>();

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
  // on the server the cells outlive the request: every page it draws starts from what the request says
  if (typeof document === "undefined") return cell(field, id, value);
  return cells.get(`${field}\u0000${id}`) ?? cell(field, id, value);
}
