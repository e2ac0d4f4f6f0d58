/**
 * A real Chromium for tests: Debian's /usr/bin/chromium driven by playwright-core, headless, with the flags that
 * keep it off the network (only 127.0.0.1 is reachable here), and a fresh profile each time.
 * @module
 */
import { type Browser, chromium } from "playwright-core";

/** Chromium's flags for tests. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Launches Chromium; close it with `browser.close()`. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS, headless: true });
}

/** What {@link openWithKey} needs of a server: its address and a keyed request to it. */
export interface KeyedServer {
  url: string;
  api(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * Opens `path` of asm's page the way `asm open` does: with a one-time code in the fragment, asked of the server
 * as `asm open` asks (so it is bound to the user the server sees on this machine's connections), which the page
 * trades for its key (kept in the browser context's storage, so later navigations in the same context have it).
 */
export async function openWithKey(
  page: { goto(url: string): Promise<unknown> },
  server: KeyedServer,
  path = "/",
): Promise<void> {
  const { code } = await (await server.api("/api/open-code", { method: "POST" })).json();
  await page.goto(`${server.url}${path}#code=${code}`);
}

/** What one width shows of the sessions table, measured in the page (routes/pages' browser tests). */
export interface TableAt {
  /** the page is wider than the window (a horizontal scroll bar) */
  pageScroll: number;
  /** each shown column's header and its width (table layout), or null when rows are cards */
  columns: [string, number][] | null;
  /** the most lines one row's cells take (card layout) */
  rowLines: number;
  /** cells whose text runs past their box without an ellipsis and the full text as a tip */
  overflowing: string[];
  /** elements that stick out past the window's right edge, outermost first */
  sticking: string[];
}

/** Runs in the page (`page.evaluate(measureTable)`): the table's layout, its overflows, the page's scroll. */
export function measureTable(): TableAt {
  const shown = (el: Element) => el.getClientRects().length > 0 && getComputedStyle(el).display !== "none";
  const headers = [...document.querySelectorAll<HTMLElement>("table.sessions thead th")].filter(shown);
  const cards = getComputedStyle(document.querySelector("table.sessions tr")!).display === "flex";
  const columns = cards
    ? null
    : headers.map((th) => [th.textContent!.trim(), th.getBoundingClientRect().width] as [string, number]);
  let rowLines = 0;
  const overflowing: string[] = [];
  for (const tr of document.querySelectorAll<HTMLElement>("table.sessions tbody tr")) {
    const boxes: DOMRect[] = [];
    for (const td of tr.querySelectorAll<HTMLElement>("td")) {
      if (!shown(td) || td.classList.contains("line-break")) continue;
      if (td.getBoundingClientRect().height > 0) boxes.push(td.getBoundingClientRect());
      const range = document.createRange();
      range.selectNodeContents(td);
      const text = range.getBoundingClientRect();
      const box = td.getBoundingClientRect();
      const style = getComputedStyle(td);
      // text wider than the box is allowed only when it is clipped with an ellipsis AND the full text is one hover
      // away in the cell's title
      const inner = box.right - parseFloat(style.paddingRight);
      const clippedWithTip = style.overflow === "hidden" && style.textOverflow === "ellipsis" &&
        td.title === td.textContent;
      if (text.width > 0 && text.right > inner + 0.5 && !clippedWithTip) {
        overflowing.push(td.textContent ?? "");
      }
    }
    // a cell starts a new line when it sits below everything on the line so far (cells align on baselines)
    let lines = 0;
    let bottom = -Infinity;
    for (const box of boxes.sort((a, b) => a.top - b.top)) {
      if (box.top >= bottom - 2) {
        lines++;
        bottom = box.bottom;
      } else bottom = Math.max(bottom, box.bottom);
    }
    rowLines = Math.max(rowLines, lines);
  }
  // what sticks out past the window, outermost first (named in the failure)
  const sticking = [...document.querySelectorAll<HTMLElement>("body *")].filter((el) =>
    el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && shown(el)
  ).slice(0, 4).map((el) =>
    `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`
  );
  return {
    sticking,
    pageScroll: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    columns,
    rowLines,
    overflowing,
  };
}
