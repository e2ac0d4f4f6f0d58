/**
 * Codex's adapter: everything asm knows how to do with this agent, as one value the registry lists.
 * @module
 */
import type { AgentAdapter } from "../protocol.ts";
import { codexLaunch } from "./launch.ts";
import { codexHookConfig } from "./hook_config.ts";
import { codexOffline } from "./offline.ts";
import { codexLive } from "./live.ts";
import { codexTranscripts } from "./transcript.ts";
import { codexUsage } from "./usage.ts";
import { codexOrphanRule } from "./rollouts.ts";

/** The Codex adapter. */
export const codexAdapter: AgentAdapter = {
  hookConfig: codexHookConfig,
  launch: codexLaunch,
  offline: codexOffline,
  live: codexLive,
  transcripts: codexTranscripts,
  orphanRule: codexOrphanRule,
  usage: codexUsage,
};
