/**
 * `GET /static/islands.<hash>.js`: the island bundle, from memory; cached for good, since its name is its hash.
 * @module
 */
import { jsonError, type Route } from "../lib/server/mod.ts";
import { islandBundle } from "../lib/ui/mod.ts";

/** The static routes. */
export const staticRoutes: Route[] = [{
  method: "GET",
  pattern: "/static/:file",
  async handle(_req, _ctx, params) {
    const bundle = await islandBundle();
    if (`/static/${params.file}` !== bundle.url) return jsonError(404, `no such file: ${params.file}`);
    return new Response(bundle.js, {
      headers: {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
      },
    });
  },
}];
