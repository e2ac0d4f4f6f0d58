/**
 * The transcript readers alone, by adapter name: what a read worker loads (the whole registry, with launchers,
 * hook installers and usage readers, took a worker longer to load than many files take to read).
 * registry_test.ts checks this map and the registry's adapters agree.
 * @module
 */
import type { TranscriptCapability } from "../derive/mod.ts";
import { claudeTranscripts } from "./claude/transcript.ts";
import { codexTranscripts } from "./codex/transcript.ts";
import { geminiTranscripts } from "./gemini/transcript.ts";

const READERS: Record<string, TranscriptCapability> = {
  claude: claudeTranscripts,
  codex: codexTranscripts,
  gemini: geminiTranscripts,
};

/** The transcript reader of the adapter of that name; throws for one that has none. */
export function transcriptReader(adapter: string): TranscriptCapability {
  const reader = READERS[adapter];
  if (!reader) throw new Error(`asm has no transcript reader named "${adapter}"`);
  return reader;
}

/** The adapter names that have a transcript reader. */
export function transcriptAdapters(): string[] {
  return Object.keys(READERS);
}
