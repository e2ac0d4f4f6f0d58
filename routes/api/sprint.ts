/**
 * The board's API (the sprint page builds against it; the JSON is in docs/runbook.md, section 6i):
 *
 * - `GET /api/sprint[?fresh=1]`: the board as the sweep's memo holds it (`fresh=1` reads the outliner now), each
 *   card with its bound session's status and its five buttons' refusals, the driven sessions not on the plan,
 *   and the agents;
 * - `POST /api/sprint/:card/start` `{agent?, model?}`, `.../resume` `{model?}`, `.../continue` `{agent, model?}`,
 *   `.../done`, `.../end`: the card buttons (lib/reconcile `buttons.ts`, `end.ts`).
 *
 * A card request carries ids and names, never text: the card is named by its id in the path, the body holds at
 * most an agent's name and a model (the prompt is the card's own text on the board), in at most 1 KiB; any other
 * key is refused. Refusals are sentences with the status of their kind, as every action's (`actions.ts`).
 * @module
 */
import { json, type Route, type ServerContext } from "../../lib/server/mod.ts";
import { actionDeps, ActionRefused } from "../../lib/launch/mod.ts";
import {
  type ButtonDeps,
  continueCard,
  doneCard,
  endCard,
  resumeCard,
  startCard,
} from "../../lib/reconcile/mod.ts";
import { actionRoute } from "./actions.ts";

/** The most a card request's body may carry. */
export const CARD_BODY_BYTES = 1024;

/** A card id as the outliners spell them (a Markdown block id, a remote's node id). */
const CARD_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** An agent's name or a model: printable, no spaces, short. */
const NAME = /^[\x21-\x7e]{1,200}$/;

/** The body's keys, checked: only `allowed`, each a short name (or the tests' boolean). */
function cardBody(body: Record<string, unknown>, allowed: readonly string[]): Record<string, unknown> {
  for (const [key, value] of Object.entries(body)) {
    if (!allowed.includes(key)) {
      throw new ActionRefused(
        "invalid",
        `a card request carries ${
          allowed.length ? allowed.join(", ") : "nothing"
        }; "${key}" is not one of them ` +
          "(a card's prompt is its own text on the board)",
      );
    }
    if (key === "bypass_hook_trust") {
      if (typeof value !== "boolean") {
        throw new ActionRefused("invalid", "bypass_hook_trust must be true or false");
      }
    } else if (value !== null && value !== "" && (typeof value !== "string" || !NAME.test(value))) {
      throw new ActionRefused(
        "invalid",
        `${key} must be a name (printable, no spaces, at most 200 characters)`,
      );
    }
  }
  return body;
}

function cardId(params: Record<string, string>): string {
  if (!CARD_ID.test(params.card)) throw new ActionRefused("invalid", "a card is named by its id");
  return params.card;
}

/** The buttons' dependencies for this request, or a refusal saying why the board is off. */
function buttons(ctx: ServerContext): ButtonDeps {
  const deps = ctx.state.board.buttons(actionDeps(ctx));
  if (deps === null) throw new ActionRefused("unavailable", ctx.state.board.problem ?? "the board is off");
  return deps;
}

const LAUNCH_KEYS = ["agent", "model", "bypass_hook_trust"];

/** The board's routes. */
export const sprintRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/api/sprint",
    async handle(req, ctx) {
      const fresh = new URL(req.url).searchParams.get("fresh") === "1";
      return json(await ctx.state.board.view(ctx.ledger, { fresh }));
    },
  },
  actionRoute(
    "/api/sprint/:card/start",
    (ctx, b, p) => startCard(buttons(ctx), cardId(p), cardBody(b, LAUNCH_KEYS)),
    CARD_BODY_BYTES,
  ),
  actionRoute(
    "/api/sprint/:card/resume",
    (ctx, b, p) => resumeCard(buttons(ctx), cardId(p), cardBody(b, ["model", "bypass_hook_trust"])),
    CARD_BODY_BYTES,
  ),
  actionRoute(
    "/api/sprint/:card/continue",
    (ctx, b, p) => continueCard(buttons(ctx), cardId(p), cardBody(b, LAUNCH_KEYS)),
    CARD_BODY_BYTES,
  ),
  actionRoute("/api/sprint/:card/done", (ctx, b, p) => {
    cardBody(b, []);
    return doneCard(buttons(ctx), cardId(p));
  }, CARD_BODY_BYTES),
  actionRoute("/api/sprint/:card/end", (ctx, b, p) => {
    cardBody(b, []);
    const board = ctx.state.board.ending();
    if (board === null) throw new ActionRefused("unavailable", ctx.state.board.problem ?? "the board is off");
    return endCard(board, actionDeps(ctx), cardId(p));
  }, CARD_BODY_BYTES),
];
