/**
 * One-time codes: how the page gets the install token without it ever travelling in a URL or a process argument
 * (`/proc/<pid>/cmdline` is world-readable). `asm open` asks the server for a code (with the token), opens
 * `http://127.0.0.1:<port>/#code=<code>` (a fragment never reaches a server or a Referer), and the page trades the
 * code for the token at `POST /api/token`. A code works once, for 60 s; only the newest few are kept.
 * @module
 */
import type { Clock } from "../lang/mod.ts";

/** How long a code may wait to be traded. */
export const CODE_TTL_MS = 60_000;
/** Codes kept at once (each `asm open` mints one; older ones are forgotten first). */
const MAX_CODES = 16;

/** The codes of one server, in memory only: a restart forgets them, which is the point. */
export class OneTimeCodes {
  #codes = new Map<string, number>();
  #now: Clock;

  constructor(now: Clock = Date.now) {
    this.#now = now;
  }

  /** A new code (32 random bytes, base64url) and when it expires (ms since the epoch). */
  mint(): { code: string; expiresAt: number } {
    this.#forgetExpired();
    while (this.#codes.size >= MAX_CODES) this.#codes.delete(this.#codes.keys().next().value!);
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const code = btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(
      /=+$/,
      "",
    );
    const expiresAt = this.#now() + CODE_TTL_MS;
    this.#codes.set(code, expiresAt);
    return { code, expiresAt };
  }

  /** True exactly once for a code minted here within its time; the code is spent either way. */
  redeem(code: unknown): boolean {
    if (typeof code !== "string") return false;
    const expiresAt = this.#codes.get(code);
    if (expiresAt === undefined) return false;
    this.#codes.delete(code);
    return this.#now() < expiresAt;
  }

  #forgetExpired(): void {
    const now = this.#now();
    for (const [code, at] of this.#codes) if (at <= now) this.#codes.delete(code);
  }
}
