/**
 * Who opened connections, asked of {@link ./peer_worker.ts} on its own thread: one ask at a time, each for every
 * connection accepted since the last (the server batches them while an ask runs). A Worker that fails (it could
 * not start, it died) fails the asks out at that moment with its error, and the next ask starts a new one.
 * @module
 */
import type { PeerOwner } from "./sockets.ts";
import type { PeerAsk, PeerReply } from "./peer_worker.ts";

/** Asks the socket table on a Worker. */
export class PeerLookup {
  #worker: Worker | null = null;
  #next = 1;
  #pending = new Map<number, { resolve(owners: PeerOwner[]): void; reject(err: Error): void }>();

  /** The owners of the connections from `peers` to `serverPort`, one per peer, in order. */
  owners(peers: { hostname: string; port: number }[], serverPort: number): Promise<PeerOwner[]> {
    const worker = this.#worker ?? this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, peers, serverPort } satisfies PeerAsk);
    });
  }

  /** Ends the Worker; asks still out fail. */
  close(): void {
    this.#fail(new Error("the peer lookup was closed"));
  }

  #start(): Worker {
    const worker = new Worker(new URL("./peer_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<PeerReply>) => {
      const reply = event.data;
      const ask = this.#pending.get(reply.id);
      if (!ask) return;
      this.#pending.delete(reply.id);
      if ("owners" in reply) ask.resolve(reply.owners);
      else ask.reject(new Error(reply.error));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#fail(new Error(`the peer lookup's Worker failed: ${event.message}`));
    };
    this.#worker = worker;
    return worker;
  }

  #fail(err: Error): void {
    this.#worker?.terminate();
    this.#worker = null;
    for (const ask of this.#pending.values()) ask.reject(err);
    this.#pending.clear();
  }
}
