/**
 * `GET /api/search?q=...&deep=1&all=1`: shallow by default (the session rows), `deep=1` reads inside the
 * transcripts. The search runs in a Worker (lib/search), never on the event loop. Optional bounds `seconds`,
 * `hits` and `bytes` (per file) narrow the defaults (5 s, 200 matches, 8 MiB); they can never widen past ten
 * times the defaults. A query shorter than two characters is refused with a 400 and a sentence.
 * @module
 */
import { DEFAULT_LIMITS, RefusedQuery, search, type SearchLimits } from "../../lib/search/mod.ts";
import { json, jsonError, type Route } from "../../lib/server/mod.ts";
import { errorText } from "../../lib/lang/mod.ts";

/** The bounds a request asked for, within ten times the defaults; an unreadable value keeps the default. */
export function limitsOf(params: URLSearchParams): Partial<SearchLimits> {
  const out: Partial<SearchLimits> = {};
  const pick = (name: string, key: keyof SearchLimits) => {
    const raw = params.get(name);
    const value = raw === null ? NaN : Number(raw);
    if (Number.isFinite(value) && value > 0) out[key] = Math.min(value, DEFAULT_LIMITS[key] * 10);
  };
  pick("seconds", "seconds");
  pick("hits", "hits");
  pick("bytes", "bytesPerFile");
  return out;
}

/** The search route. */
export const searchRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/search",
  heavy: true,
  async handle(req, ctx) {
    const params = new URL(req.url).searchParams;
    try {
      const answer = await search(
        {
          query: params.get("q") ?? "",
          deep: params.get("deep") === "1",
          all: params.get("all") === "1",
          limits: limitsOf(params),
        },
        { ledgerPath: ctx.ledger.path, asmHome: ctx.asmHome, env: ctx.env },
      );
      return json(answer);
    } catch (err) {
      if (err instanceof RefusedQuery) return jsonError(400, err.message);
      ctx.log({ what: "search failed", error: String(err) });
      return jsonError(500, errorText(err));
    }
  },
}];
