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
