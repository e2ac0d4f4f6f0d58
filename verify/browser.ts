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

/** What {@link openWithKey} needs of a server: its address and its one-time codes. */
export interface KeyedServer {
  url: string;
  context: { codes: { mint(): { code: string } } };
}

/**
 * Opens `path` of asm's page the way `asm open` does: with a one-time code in the fragment, which the page trades
 * for its key (kept in the browser context's storage, so later navigations in the same context have it).
 */
export async function openWithKey(
  page: { goto(url: string): Promise<unknown> },
  server: KeyedServer,
  path = "/",
): Promise<void> {
  const { code } = server.context.codes.mint();
  await page.goto(`${server.url}${path}#code=${code}`);
}
