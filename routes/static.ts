/**
 * `GET /static/islands.<hash>.js` and `/static/terminal.<hash>.js`: the island bundle and the terminal view's, from
 * memory; cached for good, since a name is its hash.
 * @module
 */
import { jsonError, type Route } from "../lib/server/mod.ts";
import { islandBundle, terminalBundle } from "../lib/ui/mod.ts";

/** The static routes. */
export const staticRoutes: Route[] = [{
  method: "GET",
  pattern: "/static/:file",
  async handle(_req, _ctx, params) {
    const name = `/static/${params.file}`;
    const bundle = name.startsWith("/static/terminal.") ? await terminalBundle() : await islandBundle();
    if (name !== bundle.url) return jsonError(404, `no such file: ${params.file}`);
    return new Response(bundle.js, {
      headers: {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
      },
    });
  },
}];
