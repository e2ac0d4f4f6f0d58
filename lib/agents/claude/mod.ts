/**
 * Claude's adapter: everything asm knows how to do with this agent, as one value the registry lists.
 * @module
 */
import type { AgentAdapter } from "../protocol.ts";
import { claudeLaunch } from "./launch.ts";
import { claudeHookConfig } from "./hook_config.ts";
import { claudeOffline } from "./offline.ts";
import { claudeLive } from "./live.ts";
import { claudeTranscripts } from "./transcript.ts";
import { claudeUsage } from "./usage.ts";

/** The Claude adapter. */
export const claudeAdapter: AgentAdapter = {
  hookConfig: claudeHookConfig,
  launch: claudeLaunch,
  offline: claudeOffline,
  live: claudeLive,
  transcripts: claudeTranscripts,
  usage: claudeUsage,
};
