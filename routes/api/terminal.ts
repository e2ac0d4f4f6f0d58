/**
 * The terminal view (lib/launch/pane_view.ts, views.ts):
 *
 * - `GET /api/terminal?session=<asm_id>` or `?launch=<token>`: opens a view of the proven pane and streams it,
 *   one JSON object a line: first `{view, agent, interrupt, attach}` (the view's id, the agent's interrupt key,
 *   the command that attaches a terminal to the window), then `{paint, cols, rows}` (the screen, base64),
 *   `{out}` (output, base64), `{size: {cols, rows}}`, and last `{closed}` (why, a sentence). Refused with the
 *   sentence when the pane is not proven. Admitted like every API call (owner only, the token as a header, the
 *   Origin checked by the browser's same-origin fetch); the page reads it with a streamed `fetch`.
 * - `POST /api/terminal/:view/keys` `{bytes}` (base64) or `{key: "interrupt" | "Escape" | "C-c" | "Enter"}`:
 *   keys into the pane, as bytes (`send-keys -H`: nothing is read as a key name).
 * @module
 */
import { Buffer } from "node:buffer";
import { jsonError, type Route, type ServerContext } from "../../lib/server/mod.ts";
import {
  actionDeps,
  ActionRefused,
  namedKey,
  type ViewFrame,
  type ViewTarget,
} from "../../lib/launch/mod.ts";
import { loadAgents } from "../../lib/agents/mod.ts";
import { actionRoute } from "./actions.ts";

/** The most bytes one keys request may carry (a paste). */
const MAX_KEY_BYTES = 64 * 1024;

function frameLine(frame: ViewFrame): Record<string, unknown> {
  switch (frame.kind) {
    case "paint":
      return { paint: Buffer.from(frame.bytes).toString("base64"), cols: frame.cols, rows: frame.rows };
    case "output":
      return { out: Buffer.from(frame.bytes).toString("base64") };
    case "size":
      return { size: { cols: frame.cols, rows: frame.rows } };
    case "closed":
      return { closed: frame.why };
  }
}

function targetOf(url: URL): ViewTarget {
  const session = url.searchParams.get("session");
  const launch = url.searchParams.get("launch");
  if (session) return { session };
  if (launch) return { launch };
  throw new ActionRefused("invalid", "name what to show: ?session=<asm id> or ?launch=<token>");
}

async function openStream(ctx: ServerContext, url: URL): Promise<Response> {
  const deps = actionDeps(ctx);
  const { id, view, agent } = await ctx.state.views.open(deps, targetOf(url));
  const config = loadAgents({ asmHome: ctx.asmHome, env: ctx.env }).find((a) => a.name === agent);
  const encoder = new TextEncoder();
  const line = (o: unknown) => encoder.encode(JSON.stringify(o) + "\n");
  let first = true;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return;
      if (first) {
        first = false;
        controller.enqueue(line({
          view: id,
          agent,
          interrupt: config?.interrupt_key ?? "Escape",
          attach: deps.host.attachCommand(view.pane),
        }));
        return;
      }
      const frame = await view.next();
      controller.enqueue(line(frameLine(frame)));
      if (frame.kind === "closed") {
        done = true;
        await ctx.state.views.close(id);
        controller.close();
      }
    },
    async cancel() {
      // the page went away: its tmux client detaches
      done = true;
      await ctx.state.views.close(id, "the page went away");
    },
  }, { highWaterMark: 2 });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

function keysOf(body: Record<string, unknown>, interrupt: string): Uint8Array {
  if (typeof body.key === "string") {
    const name = body.key === "interrupt" ? interrupt : body.key;
    const bytes = namedKey(name);
    if (!bytes) {
      throw new ActionRefused(
        "invalid",
        `asm knows the keys Escape, C-c, Enter and interrupt`,
      );
    }
    return bytes;
  }
  if (typeof body.bytes !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(body.bytes)) {
    throw new ActionRefused("invalid", "send {bytes: <base64>} or {key: <name>}");
  }
  const bytes = new Uint8Array(Buffer.from(body.bytes, "base64"));
  if (bytes.length > MAX_KEY_BYTES) {
    throw new ActionRefused("invalid", `at most ${MAX_KEY_BYTES} bytes at once`);
  }
  return bytes;
}

/** The terminal routes. */
export const terminalRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/api/terminal",
    async handle(req, ctx) {
      try {
        return await openStream(ctx, new URL(req.url));
      } catch (err) {
        if (err instanceof ActionRefused) {
          const status = { invalid: 400, unknown: 404, conflict: 409, unavailable: 503 }[err.kind];
          return jsonError(status, err.message);
        }
        throw err;
      }
    },
  },
  actionRoute("/api/terminal/:view/keys", async (ctx, body, params) => {
    const { view, agent } = ctx.state.views.get(params.view);
    const config = loadAgents({ asmHome: ctx.asmHome, env: ctx.env }).find((a) => a.name === agent);
    const bytes = keysOf(body, config?.interrupt_key ?? "Escape");
    try {
      await view.keys(bytes);
    } catch (err) {
      // the proof failed as the keys came (the session ended), or tmux did not take them
      throw new ActionRefused("conflict", (err as Error).message);
    }
    return { view: params.view, sent: bytes.length };
  }, MAX_KEY_BYTES * 2),
];
