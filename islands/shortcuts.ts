/// <reference lib="dom" />
/**
 * Keyboard shortcuts for the page: `/` search, `j` / `k` move through the rows, `Enter` opens the row, `n` a new
 * session, `?` lists them, `Esc` closes what is open. Never while typing in a field, never with a modifier.
 * @module
 */
import { closeDialog, openDialog } from "./actions.tsx";

/** The shortcuts, as the `?` list shows them. */
export const SHORTCUTS: readonly [string, string][] = [
  ["/", "search sessions"],
  ["j / k", "next / previous row"],
  ["Enter", "open the selected row"],
  ["n", "new session"],
  ["?", "this list"],
  ["Esc", "close a dialog or this list"],
];

function rows(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>("table.sessions tbody tr")];
}

function move(by: number): void {
  const all = rows();
  if (all.length === 0) return;
  const at = all.findIndex((r) => r.classList.contains("selected"));
  const next = all[Math.max(0, Math.min(all.length - 1, at < 0 ? 0 : at + by))];
  all[at]?.classList.remove("selected");
  next.classList.add("selected");
  next.setAttribute("aria-selected", "true");
  next.scrollIntoView({ block: "nearest" });
}

function toggleList(): void {
  const shown = document.getElementById("shortcuts");
  if (shown) return shown.remove();
  const box = document.createElement("div");
  box.id = "shortcuts";
  box.className = "shortcuts";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-label", "Keyboard shortcuts");
  const list = document.createElement("dl");
  for (const [key, what] of SHORTCUTS) {
    const dt = document.createElement("dt");
    dt.textContent = key;
    const dd = document.createElement("dd");
    dd.textContent = what;
    list.append(dt, dd);
  }
  box.append(list);
  document.body.append(box);
}

/** Listens for the shortcuts on the whole page. */
export function wireShortcuts(): void {
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      document.getElementById("shortcuts")?.remove();
      closeDialog();
      return;
    }
    const target = e.target as HTMLElement;
    if (
      e.ctrlKey || e.metaKey || e.altKey ||
      target.closest("input, textarea, select, [contenteditable], .dialog")
    ) {
      return;
    }
    const selected = document.querySelector<HTMLElement>("table.sessions tbody tr.selected");
    switch (e.key) {
      case "/":
        e.preventDefault();
        document.querySelector<HTMLInputElement>(".search input[type=search]")?.focus();
        return;
      case "j":
        return move(1);
      case "k":
        return move(-1);
      case "Enter":
        if (!selected) return;
        e.preventDefault();
        selected.querySelector<HTMLAnchorElement>("td.title a")?.click();
        return;
      case "n":
        e.preventDefault();
        return openDialog({ kind: "launch" });
      case "?":
        return toggleList();
    }
  });
}
