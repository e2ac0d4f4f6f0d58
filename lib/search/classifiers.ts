/**
 * Each agent's line classifier, asked of the registry: search never names an agent.
 * @module
 */
import type { AgentConfig } from "../agents/protocol.ts";
import { adapterOf } from "../agents/registry.ts";
import type { Classify } from "./scan.ts";

/** agent name -> its line classifier, for the agents whose adapter can read transcripts. */
export function classifiersOf(agents: readonly AgentConfig[]): Map<string, Classify> {
  const out = new Map<string, Classify>();
  for (const agent of agents) {
    const transcripts = adapterOf(agent).transcripts;
    if (transcripts) out.set(agent.name, (line) => transcripts.classifyLine(line));
  }
  return out;
}
