/**
 * The browser's live cells: one signal per (field, session id). A cell is rendered by passing the signal itself
 * as a JSX child, so writing a new value patches that one Text node and no component renders again.
 * @module
 */
import { type Signal, signal } from "@preact/signals";

const cells = new Map<string, Signal<string>>();

/** The signal of one cell, created with its first value. */
export function cell(field: string, id: string, initial: string): Signal<string> {
  const key = `${field}\u0000${id}`;
  let s = cells.get(key);
  if (!s) {
    s = signal(initial);
    cells.set(key, s);
  }
  return s;
}

/** Writes a cell; returns true when the value changed. */
export function setCell(field: string, id: string, value: string): boolean {
  const s = cell(field, id, value);
  if (s.peek() === value) return false;
  s.value = value;
  return true;
}
