/**
 * Each agent's line classifier, asked of the registry: search never names an agent.
 * @module
 */
import { adapterOf, type AgentConfig } from "../agents/mod.ts";
import type { Classify } from "./scan.ts";

/** agent name -> its line classifier, for the agents whose adapter can read transcripts. */
export function classifiersOf(agents: readonly AgentConfig[]): Map<string, Classify> {
  const out = new Map<string, Classify>();
  for (const agent of agents) {
    const transcripts = adapterOf(agent).transcripts;
    if (!transcripts) continue;
    const classify: Classify = (line) => transcripts.classifyLine(line);
    if (transcripts.documentRecords) classify.documentRecords = (text) => transcripts.documentRecords!(text);
    out.set(agent.name, classify);
  }
  return out;
}

/**
 * agent name -> the folders it keeps its transcripts in: a scan reads a transcript only when its real path lies
 * in one of them (a hook's `transcript_path` through a linked folder must not lead a read elsewhere).
 */
export function storesOf(agents: readonly AgentConfig[], env: Record<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const agent of agents) {
    const transcripts = adapterOf(agent).transcripts;
    if (!transcripts) continue;
    try {
      out.set(agent.name, transcripts.stores(env));
    } catch {
      out.set(agent.name, []); // no HOME: the agent keeps no folder here, and nothing of its is read
    }
  }
  return out;
}
