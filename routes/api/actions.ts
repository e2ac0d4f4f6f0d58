/**
 * The actions, each one POST with a JSON body (spec: anything that can send an HTTP request can drive them):
 *
 * - `POST /api/launch` `{agent, folder, model?, name?, prompt?}`: a new session in a new window;
 * - `POST /api/sessions/:id/end`: stop it and close its window (`window_closed` counted); a session bound to a
 *   board card goes through the board's END (lib/reconcile `endThroughCard`): its card is filed to COMPLETE,
 *   whichever door (a sessions-list row, the session page, `./asm end`) sent the request;
 * - `POST /api/sessions/:id/resume` `{model?, prompt?}`: the same agent, the same session id;
 * - `POST /api/sessions/:id/continue` `{agent, prompt?, model?, name?}`: another agent takes over;
 * - `POST /api/sessions/:id/send` `{text}`: one line (a prompt or a slash command) typed into its proven pane, and
 *   Enter; refused while it waits on a dialog (the terminal view answers those);
 * - `POST /api/sessions/:id/focus`: bring its window forward;
 * - `POST /api/sessions/:id/closeout`: resume an ended session with its agent's closeout skill (lib/launch
 *   closeout.ts); `POST /api/sessions/:id/closeout-live`: type that skill into a live session's proven window.
 *
 * Refusals are plain sentences with a 4xx status (400 bad request, 404 unknown session, 409 refused in this
 * state, 503 no terminal host). `GET /api/launches` lists the launches still waiting for their session, each
 * with the dialog it waits on, and the latest ones.
 * @module
 */
import { json, jsonError, type Route, type ServerContext } from "../../lib/server/mod.ts";
import {
  actionDeps,
  ActionRefused,
  closeoutLive,
  closeoutSession,
  continueWith,
  focusSession,
  launchSession,
  type RefusalKind,
  resumeSession,
  sendCommand,
  TerminalHostError,
} from "../../lib/launch/mod.ts";
import { pendingLaunches, recentLaunches } from "../../lib/ledger/mod.ts";
import { endThroughCard } from "../../lib/reconcile/mod.ts";
import { BoardBusy, BoardUnusable } from "../../lib/board/mod.ts";
import { isRecord } from "../../lib/lang/mod.ts";

async function body(req: Request): Promise<Record<string, unknown>> {
  const text = await req.text();
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ActionRefused("invalid", "the request body is not JSON");
  }
  if (!isRecord(parsed)) throw new ActionRefused("invalid", "the request body must be a JSON object");
  return parsed;
}

/** The HTTP status of each kind of refusal. */
const REFUSAL_STATUS: Record<RefusalKind, number> = {
  invalid: 400,
  unknown: 404,
  conflict: 409,
  unavailable: 503,
};

/** The most an action's body may carry. */
export const ACTION_BODY_BYTES = 1 << 20;

/**
 * A POST route running one action: its JSON body read (at most `maxBodyBytes`), its answer as JSON, a refusal as
 * its sentence with the refusal kind's status (the board's card routes use it too).
 */
export function actionRoute(
  pattern: string,
  run: (
    ctx: ServerContext,
    body: Record<string, unknown>,
    params: Record<string, string>,
  ) => Promise<unknown>,
  // a prompt may be 100,000 bytes, and JSON spells a control character in six
  maxBodyBytes = ACTION_BODY_BYTES,
): Route {
  return {
    method: "POST",
    pattern,
    maxBodyBytes,
    async handle(req, ctx, params) {
      try {
        return json(await run(ctx, await body(req), params));
      } catch (err) {
        if (err instanceof ActionRefused) return jsonError(REFUSAL_STATUS[err.kind], err.message);
        // tmux missing or failing mid-action: the terminal host is unavailable, not the server broken
        if (err instanceof TerminalHostError) return jsonError(503, err.message);
        // the board could not be read or written (a service backing off, a file that keeps changing): its sentence
        if (err instanceof BoardUnusable || err instanceof BoardBusy) return jsonError(503, err.message);
        throw err;
      }
    },
  };
}

/** The action routes. */
export const actionRoutes: Route[] = [
  actionRoute("/api/launch", (ctx, b) =>
    launchSession(actionDeps(ctx), {
      agent: b.agent as string,
      folder: b.folder as string,
      model: b.model as string | null,
      name: b.name as string | null,
      prompt: b.prompt as string | null,
      bypass_hook_trust: b.bypass_hook_trust === true,
    })),
  // one END for every door: through the session's card when it has one (filed to COMPLETE)
  actionRoute(
    "/api/sessions/:id/end",
    (ctx, _b, p) => endThroughCard(ctx.state.board.ending(), actionDeps(ctx), p.id),
  ),
  actionRoute("/api/sessions/:id/resume", (ctx, b, p) =>
    resumeSession(actionDeps(ctx), p.id, {
      model: b.model as string | null,
      prompt: b.prompt as string | null,
      bypass_hook_trust: b.bypass_hook_trust === true,
    })),
  actionRoute("/api/sessions/:id/continue", (ctx, b, p) =>
    continueWith(actionDeps(ctx), p.id, {
      agent: b.agent as string,
      prompt: b.prompt as string | null,
      model: b.model as string | null,
      name: b.name as string | null,
      bypass_hook_trust: b.bypass_hook_trust === true,
    })),
  actionRoute("/api/sessions/:id/send", (ctx, b, p) => sendCommand(actionDeps(ctx), p.id, b.text)),
  actionRoute("/api/sessions/:id/focus", (ctx, _b, p) => focusSession(actionDeps(ctx), p.id)),
  actionRoute(
    "/api/sessions/:id/closeout",
    (ctx, b, p) =>
      closeoutSession(actionDeps(ctx), p.id, { bypass_hook_trust: b.bypass_hook_trust === true }),
  ),
  actionRoute("/api/sessions/:id/closeout-live", (ctx, _b, p) => closeoutLive(actionDeps(ctx), p.id)),
  {
    method: "GET",
    pattern: "/api/launches",
    handle(_req, ctx) {
      return json({ pending: pendingLaunches(ctx.ledger), recent: recentLaunches(ctx.ledger, 50) });
    },
  },
];
