/**
 * One-time codes: how the page gets the install token without it ever travelling in a URL or a process argument
 * (`/proc/<pid>/cmdline` is world-readable). `asm open` asks the server for a code (with the token), opens
 * `http://127.0.0.1:<port>/#code=<code>` (a fragment never reaches a server or a Referer) through a private file,
 * never a process argument (lib/cli/open.ts), and the page trades the code for the token at `POST /api/token`. A
 * code works once, for 60 s, and only for the local user who asked for it: another user `allowed_uids` lets in
 * cannot trade a code it read somewhere (and trying does not spend it). Only the newest few are kept.
 * @module
 */
import type { Clock } from "../lang/mod.ts";

/** How long a code may wait to be traded. */
export const CODE_TTL_MS = 60_000;
/** Codes kept at once (each `asm open` mints one; older ones are forgotten first). */
const MAX_CODES = 16;

/** The codes of one server, in memory only: a restart forgets them, which is the point. */
export class OneTimeCodes {
  #codes = new Map<string, { expiresAt: number; uid: number | null }>();
  #now: Clock;

  constructor(now: Clock = Date.now) {
    this.#now = now;
  }

  /**
   * A new code (32 random bytes, base64url) for the user `uid` (null where the platform cannot name users) and
   * when it expires (ms since the epoch).
   */
  mint(uid: number | null): { code: string; expiresAt: number } {
    this.#forgetExpired();
    while (this.#codes.size >= MAX_CODES) this.#codes.delete(this.#codes.keys().next().value!);
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const code = btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(
      /=+$/,
      "",
    );
    const expiresAt = this.#now() + CODE_TTL_MS;
    this.#codes.set(code, { expiresAt, uid });
    return { code, expiresAt };
  }

  /**
   * True exactly once for a code minted here within its time, traded by the user it was minted for; the code is
   * spent when it is traded or has expired, never by another user's try (which would let them spend the owner's).
   */
  redeem(code: unknown, uid: number | null): boolean {
    if (typeof code !== "string") return false;
    const minted = this.#codes.get(code);
    if (minted === undefined) return false;
    if (minted.uid !== null && minted.uid !== uid && this.#now() < minted.expiresAt) return false;
    this.#codes.delete(code);
    return this.#now() < minted.expiresAt;
  }

  #forgetExpired(): void {
    const now = this.#now();
    for (const [code, { expiresAt }] of this.#codes) if (expiresAt <= now) this.#codes.delete(code);
  }
}
