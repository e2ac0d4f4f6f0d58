/**
 * How the page gets asm's key: `POST /api/open-code` (with the token: `asm open`, or `asm serve` on a terminal)
 * mints a one-time code; the page, opened at `/#code=<code>`, trades it at `POST /api/token` for the token and
 * keeps that in storage scoped to its exact origin. A code works once, for 60 s, for the user who asked for it.
 * @module
 */
import { json, jsonError, peerUid, type Route } from "../../lib/server/mod.ts";

/** The page's address that trades `code` (the code rides in the fragment: never sent to any server). */
export function openUrl(port: number, code: string): string {
  return `http://127.0.0.1:${port}/#code=${code}`;
}

/** The key routes. */
export const authRoutes: Route[] = [
  {
    method: "POST",
    pattern: "/api/open-code",
    handle(_req, ctx, _params, peer) {
      // the code is the asking user's: only a connection of theirs trades it
      const { code, expiresAt } = ctx.codes.mint(peerUid(peer));
      return json({ code, url: openUrl(ctx.port(), code), expires_at: new Date(expiresAt).toISOString() });
    },
  },
  {
    method: "POST",
    pattern: "/api/token",
    maxBodyBytes: 1024,
    async handle(req, ctx, _params, peer) {
      const body = await req.json().catch(() => null) as { code?: unknown } | null;
      if (!ctx.codes.redeem(body?.code, peerUid(peer))) {
        return jsonError(
          403,
          "this code is spent or has expired (or another user asked for it); run `asm open` again for a new one",
        );
      }
      return json({ token: ctx.token });
    },
  },
];
