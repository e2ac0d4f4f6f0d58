/**
 * The router: routes are `{method, pattern, handle}` values (the app's are listed in `routes/mod.ts` and handed
 * to the server by `main.ts`); a pattern is a URLPattern pathname (`/api/sessions/:id`). Handlers get the server
 * context, never globals, so a test can hand in its own.
 * @module
 */
import type { Ledger } from "../ledger/mod.ts";
import type { TaskStatus } from "./tasks.ts";
import type { LockHolder } from "./lock.ts";
import type { OneTimeCodes } from "./codes.ts";
import type { FileReader } from "../files/mod.ts";
import type { Settings } from "../config/mod.ts";
import type { ServerState } from "./state.ts";
import type { LogLine } from "../lang/mod.ts";
import type { ServerFaults } from "./faults.ts";
import type { ConnectionCounts, Peer } from "./connections.ts";

/** What every handler and background service can reach. */
export interface ServerContext {
  asmHome: string;
  /** The environment agent folders are resolved from (HOME, CODEX_HOME, GEMINI_CLI_HOME). */
  env: Record<string, string>;
  mode: "live" | "testing";
  port(): number;
  ledger: Ledger;
  log(line: LogLine): void;
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
  /** what this server keeps between requests and ticks */
  state: ServerState;
  /** what the machine does to the server itself (its log unwritable, accepts failing): the health names it */
  faults: ServerFaults;
  /** the connections served, refused, dropped and timed out (the health shows them) */
  connections(): ConnectionCounts;
}

/** One route. */
export interface Route {
  method: "GET" | "POST";
  /** `/api/sessions/:id/end`: `:id` is captured into `params.id` */
  pattern: string;
  /** `peer` is who opened the request's connection, as judged when it was accepted */
  handle(
    req: Request,
    ctx: ServerContext,
    params: Record<string, string>,
    peer: Peer,
  ): Response | Promise<Response>;
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

/** A route found for a request, with its captured segments (percent-decoded). */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Routes compiled once: the first whose method and URLPattern match a request's wins. */
export interface Router {
  match(method: string, pathname: string): RouteMatch | null;
}

/** Compiles the routes, in order. */
export function createRouter(routes: readonly Route[]): Router {
  const compiled = routes.map((route) => ({ route, pattern: new URLPattern({ pathname: route.pattern }) }));
  return {
    match(method, pathname) {
      for (const { route, pattern } of compiled) {
        if (route.method !== method) continue;
        const found = pattern.exec({ pathname });
        if (!found) continue;
        const params: Record<string, string> = {};
        try {
          for (const [name, value] of Object.entries(found.pathname.groups)) {
            if (value !== undefined) params[name] = decodeURIComponent(value);
          }
        } catch {
          continue; // a malformed escape (`%E0%A4%A`) names nothing
        }
        return { route, params };
      }
      return null;
    },
  };
}
