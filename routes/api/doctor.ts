/**
 * `GET /api/doctor`: `asm doctor`'s report as the running server sees it (the agents looked up on the server's
 * own PATH, the server's health from its own model), for the nav's Doctor tab (its count of broken findings). A
 * gathering walks the agents' transcript folders and asks each binary its version (bounded, cached per binary),
 * so a server runs one at a time, shared by every caller; a report answers the tab for a minute, and the `/doctor`
 * page shows one gathered after it was asked for.
 * @module
 */
import { healthOf, json, type Route, type ServerContext } from "../../lib/server/mod.ts";
import { type DoctorReport, doctorReport, gatherFacts } from "../../lib/doctor/mod.ts";
import { isoAt } from "../../lib/ledger/mod.ts";

/** How old a report may be when `/api/doctor` answers with it (every open page's Doctor tab asks for it). */
const TAB_FRESH_MS = 60_000;

/** Each server's newest report and when its gathering began, and the gathering under way, if any. */
const newest = new WeakMap<ServerContext, { startedAt: number; report: DoctorReport }>();
const underWay = new WeakMap<ServerContext, { startedAt: number; report: Promise<DoctorReport> }>();

/**
 * A report gathered from `since` on (epoch ms): the newest when its gathering began then or later, else the one
 * under way when it did, else a new one once the one under way is done. A server gathers one at a time and every
 * caller shares it, so a burst of requests (open pages, a page loaded from elsewhere) costs one after another,
 * never many at once.
 */
export async function serverDoctorReport(ctx: ServerContext, since: number): Promise<DoctorReport> {
  for (;;) {
    const kept = newest.get(ctx);
    if (kept && kept.startedAt >= since) return kept.report;
    const running = underWay.get(ctx);
    if (!running) break;
    if (running.startedAt >= since) return await running.report;
    await running.report.catch(() => {}); // begun before the caller asked: wait for it, then look again
  }
  const startedAt = Date.now();
  const report = (async () => {
    try {
      const facts = await gatherFacts({
        env: ctx.env,
        asmHome: ctx.asmHome,
        seenFrom: "server",
        health: async () => ({ health: await healthOf(ctx) }),
      });
      const done = doctorReport(facts, isoAt());
      newest.set(ctx, { startedAt, report: done });
      return done;
    } finally {
      underWay.delete(ctx);
    }
  })();
  underWay.set(ctx, { startedAt, report });
  return await report;
}

/** The report the page shows: gathered after the page was asked for, so it never shows a state from before. */
export function pageDoctorReport(ctx: ServerContext): Promise<DoctorReport> {
  return serverDoctorReport(ctx, Date.now());
}

/** The doctor's route. */
export const doctorRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/doctor",
  // not counted among the heavy requests: every caller shares the one gathering a server runs at a time
  async handle(_req, ctx) {
    return json(await serverDoctorReport(ctx, Date.now() - TAB_FRESH_MS));
  },
}];
