/**
 * The search Worker: a search runs here, on its own thread, so the server's event loop keeps answering while a
 * deep search reads transcripts. It opens its own read-only connection to the ledger, asks the registry for
 * each agent's line classifier, runs one search and posts the answer back. Started by mod.ts, one per search.
 * @module
 */
/// <reference lib="deno.worker" />
import { loadAgents } from "../agents/mod.ts";
import { classifiersOf, storesOf } from "./classifiers.ts";
import { openSearchReader } from "../ledger/mod.ts";
import { RefusedQuery, runSearch, type SearchRequest } from "./run.ts";
import { readTail } from "./scan.ts";
import { errorText } from "../lang/mod.ts";

/** What the server posts to the Worker. */
export interface WorkerAsk {
  ledgerPath: string;
  asmHome: string;
  env: Record<string, string>;
  request: SearchRequest;
}

/** What the Worker posts back: the answer, or the sentence of what went wrong. */
export type WorkerReply =
  | { answer: import("./run.ts").SearchAnswer }
  | { error: string; refused: boolean };

/** Runs one ask (exported for the test of the Worker's own logic). */
export function answerAsk(ask: WorkerAsk): WorkerReply {
  try {
    const agents = loadAgents({ asmHome: ask.asmHome, env: ask.env });
    const byAgent = classifiersOf(agents);
    const stores = storesOf(agents, ask.env);
    const reader = openSearchReader(ask.ledgerPath);
    try {
      const answer = runSearch(ask.request, {
        reader,
        classifierOf: (agent) => byAgent.get(agent) ?? null,
        readTail: (path, copy, maxBytes, agent) => readTail(path, copy, maxBytes, stores.get(agent) ?? []),
        now: () => performance.now(),
      });
      return { answer };
    } finally {
      reader.close();
    }
  } catch (err) {
    return { error: errorText(err), refused: err instanceof RefusedQuery };
  }
}

if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
  self.onmessage = (event: MessageEvent<WorkerAsk>) => {
    self.postMessage(answerAsk(event.data));
  };
}
