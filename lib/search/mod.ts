/**
 * Search: one endpoint, shallow by default, deep reads inside transcripts (message text only), newest first,
 * counting matches, bounded by seconds, hits and bytes per file, refusing a one-character query, and never on the
 * event loop: every search runs in a Worker of its own. The deep index is built in the background
 * (index_build.ts).
 * @module
 */
import { RefusedQuery, type SearchAnswer, type SearchRequest } from "./run.ts";
import { refusalOf } from "./text.ts";
import type { WorkerAsk, WorkerReply } from "./worker.ts";

export {
  type BoundedBy,
  DEFAULT_LIMITS,
  RefusedQuery,
  type SearchAnswer,
  type SearchLimits,
  type SearchRequest,
  type SearchSnippet,
  type SessionMatches,
} from "./run.ts";
export { SEARCH_INDEX_EVERY_MS, type SearchIndexContext, searchIndexService } from "./index_build.ts";

/** Where a search reads: the ledger file, asm's data folder (agents.toml overrides), the agents' environment. */
export interface SearchPlace {
  ledgerPath: string;
  asmHome: string;
  env: Record<string, string>;
}

/** Extra time the Worker gets beyond the time bound (starting it, loading its modules) before it is ended. */
const GRACE_MS = 15_000;

/**
 * Runs `request` in a new Worker and returns its answer. Throws {@link RefusedQuery} for a query too short to run
 * (before any Worker starts), and an Error with a sentence when the search failed or overran its time bound.
 */
export function search(request: SearchRequest, place: SearchPlace): Promise<SearchAnswer> {
  const refusal = refusalOf(request.query);
  if (refusal !== null) return Promise.reject(new RefusedQuery(refusal));
  const seconds = request.limits?.seconds ?? 5;
  const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
  return new Promise<SearchAnswer>((resolve, reject) => {
    const guard = setTimeout(() => {
      worker.terminate();
      reject(new Error(`the search did not answer within ${seconds} s and was stopped; try a longer query`));
    }, seconds * 1000 + GRACE_MS);
    const done = () => {
      clearTimeout(guard);
      worker.terminate();
    };
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      done();
      const reply = event.data;
      if ("answer" in reply) resolve(reply.answer);
      else reject(reply.refused ? new RefusedQuery(reply.error) : new Error(reply.error));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      done();
      reject(new Error(`the search failed: ${event.message}`));
    };
    const ask: WorkerAsk = { ...place, request };
    worker.postMessage(ask);
  });
}
