/**
 * Every route of the server, in one list. A new route module adds its list here.
 * @module
 */
import type { Route } from "../lib/server/router.ts";
import { healthRoutes } from "./api/health.ts";
import { sessionsPageRoutes } from "./pages/sessions.tsx";
import { staticRoutes } from "./static.ts";

/** The routes, matched in order. */
export const ROUTES: readonly Route[] = [
  ...healthRoutes,
  ...sessionsPageRoutes,
  ...staticRoutes,
];
