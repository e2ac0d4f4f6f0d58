/**
 * The router: routes are `{method, pattern, handle}` values listed in `routes/mod.ts`; a pattern is a path with
 * `:name` segments. Handlers get the server context, never globals, so a test can hand in its own.
 * @module
 */
import type { Ledger } from "../ledger/mod.ts";
import type { TaskStatus } from "./tasks.ts";
import type { LockHolder } from "./lock.ts";
import type { OneTimeCodes } from "./codes.ts";
import type { FileReader } from "../files/mod.ts";
import type { Settings } from "../config/settings.ts";

/** What every handler and background service can reach. */
export interface ServerContext {
  asmHome: string;
  /** The environment agent folders are resolved from (HOME, CODEX_HOME, GEMINI_CLI_HOME). */
  env: Record<string, string>;
  mode: "live" | "testing";
  port(): number;
  ledger: Ledger;
  log(line: Record<string, unknown>): void;
  tasks(): TaskStatus[];
  lock: LockHolder;
  /** the install token (never sent in a cookie or a URL: see security.ts) */
  token: string;
  /** the one-time codes `asm open` trades for the token */
  codes: OneTimeCodes;
  /** every file read a request triggers goes through this (regular files only, bounded by the caller) */
  files: FileReader;
  /** config.toml's server settings, read at start */
  settings: Settings;
}

/** One route. */
export interface Route {
  method: "GET" | "POST";
  /** `/api/sessions/:id/end`: `:id` is captured into `params.id` */
  pattern: string;
  handle(req: Request, ctx: ServerContext, params: Record<string, string>): Response | Promise<Response>;
  /** the most bytes its body may carry (default 64 KiB); more is a 413 and is not read on */
  maxBodyBytes?: number;
  /** a request that reads transcripts or scans: only a few run at once, the rest get a 503 */
  heavy?: boolean;
}

/** A JSON response that is never cached. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

/** A JSON error with a sentence a person reads. */
export function jsonError(status: number, error: string): Response {
  return json({ error }, status);
}

/** The route for a method and path, with its captured segments; null when none matches. */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | null {
  const parts = pathname.split("/");
  for (const route of routes) {
    if (route.method !== method) continue;
    const want = route.pattern.split("/");
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < want.length && ok; i++) {
      if (want[i].startsWith(":")) {
        try {
          params[want[i].slice(1)] = decodeURIComponent(parts[i]);
        } catch {
          ok = false;
        }
      } else ok = want[i] === parts[i];
    }
    if (ok) return { route, params };
  }
  return null;
}
