/**
 * Gemini's adapter: everything asm knows how to do with this agent, as one value the registry lists.
 * @module
 */
import type { AgentAdapter } from "../protocol.ts";
import { geminiLaunch } from "./launch.ts";
import { geminiHookConfig } from "./hook_config.ts";
import { geminiOffline } from "./offline.ts";
import { geminiLive } from "./live.ts";
import { geminiTranscripts } from "./transcript.ts";
import { geminiUsage } from "./usage.ts";

/** The Gemini adapter. */
export const geminiAdapter: AgentAdapter = {
  hookConfig: geminiHookConfig,
  launch: geminiLaunch,
  offline: geminiOffline,
  live: geminiLive,
  transcripts: geminiTranscripts,
  usage: geminiUsage,
};
