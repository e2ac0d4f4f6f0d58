/**
 * The words a person reads for each activity (DESIGN.md "Activity words"). The database and the API keep the
 * stored key (`working`, `stalled`, ...); the word is looked up at the last moment, like ENDED for killed/lost.
 * @module
 */
import type { ActivityWord } from "./judge.ts";

/** Stored activity -> the word on the page. */
export const ACTIVITY_WORDS: Readonly<Record<ActivityWord, string>> = {
  working: "Working",
  // the agent's own retry after an API error (its evidence says so): not work being done
  retrying: "Retrying",
  waiting: "Waiting on you",
  // the last turn ended on an error the agent gave up on: the person must act (retry, fix a key, ...)
  failed: "Turn failed",
  idle: "Idle",
  shell: "Shell",
  starting: "Starting",
  stalled: "Needs attention",
  unknown: "Running",
};

/** The word for a stored activity; a value this asm does not know reads as the neutral "Running"; null stays null. */
export function activityWord(activity: string | null): string | null {
  if (activity === null) return null;
  return ACTIVITY_WORDS[activity as ActivityWord] ?? ACTIVITY_WORDS.unknown;
}
