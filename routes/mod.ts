/**
 * Every route of the server, in one list. A new route module adds its list here.
 * @module
 */
import type { Route } from "../lib/server/mod.ts";
import { healthRoutes } from "./api/health.ts";
import { authRoutes } from "./api/auth.ts";
import { actionRoutes } from "./api/actions.ts";
import { liveRoutes } from "./api/live.ts";
import { sprintRoutes } from "./api/sprint.ts";
import { heatmapRoutes } from "./api/heatmap.ts";
import { importRoutes } from "./api/import.ts";
import { projectsRoutes } from "./api/projects.ts";
import { sessionsRoutes } from "./api/sessions.ts";
import { usageRoutes } from "./api/usage.ts";
import { searchRoutes } from "./api/search.ts";
import { sessionsPageRoutes } from "./pages/sessions.tsx";
import { panelRoutes } from "./pages/panels.tsx";
import { sessionDetailPageRoutes } from "./pages/session_detail.tsx";
import { sessionDetailRoutes } from "./api/session_detail.ts";
import { staticRoutes } from "./static.ts";
import { terminalRoutes } from "./api/terminal.ts";
import { launchPageRoutes } from "./pages/launch.tsx";
import { doctorRoutes } from "./api/doctor.ts";
import { doctorPageRoutes } from "./pages/doctor.tsx";

/** The routes, matched in order. */
export const ROUTES: readonly Route[] = [
  ...healthRoutes,
  ...authRoutes,
  ...actionRoutes,
  ...liveRoutes,
  ...sprintRoutes,
  ...importRoutes,
  ...sessionsRoutes,
  ...sessionDetailRoutes,
  ...terminalRoutes,
  ...projectsRoutes,
  ...heatmapRoutes,
  ...usageRoutes,
  ...searchRoutes,
  ...sessionsPageRoutes,
  ...panelRoutes,
  ...sessionDetailPageRoutes,
  ...launchPageRoutes,
  ...doctorRoutes,
  ...doctorPageRoutes,
  ...staticRoutes,
];
