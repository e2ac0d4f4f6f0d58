/**
 * Gate 2's launch-to-live figure: how long from the launch request to the session being live with its run, and
 * whether the spec's 5 s is held for the agent. It is held only for an agent whose own start (the bare CLI, from
 * its spawn to its SessionStart hook, measured in the same run) leaves asm room for its share (the window, the
 * shim, the hook, a drain) inside the 5 s; a slower agent's figure is reported with its own start beside it, so a
 * loaded machine reads as what it is instead of as a flaky failure.
 * @module
 */

/** The spec's bound from a launch request to its session being live. */
export const LIVE_WITHIN_MS = 5_000;

/**
 * An agent whose own start here is at most this is held to {@link LIVE_WITHIN_MS}. Measured on the 2-core machine
 * here, warm, idle and with both cores kept busy: Claude Code 0.4-0.9 s, Codex 0.3-0.6 s, Gemini CLI 1.9-3.2 s;
 * asm's own share on top was 0.1-1.1 s. The line sits between the two groups, so the split does not flip with the
 * machine's weather, and an agent held to 5 s has more than 3 s of room.
 */
export const OWN_START_FITS_MS = 1_500;

/** What gate 2 measured for one agent, in ms. */
export interface LaunchToLive {
  /** The agent's display name. */
  agent: string;
  /** From the launch request to the session being live with its run. */
  liveMs: number;
  /** The bare CLI in the same homes: from its spawn to its SessionStart hook running. */
  ownStartMs: number;
}

/** Pure: the line gate 2 prints for one agent, and why the check fails when the 5 s was held and missed. */
export function launchToLiveVerdict(figures: LaunchToLive): { line: string; failure: string | null } {
  const { agent, liveMs, ownStartMs } = figures;
  const own = `its own start here: ${seconds(ownStartMs)}, spawn to its SessionStart hook`;
  if (ownStartMs > OWN_START_FITS_MS) {
    return {
      line: `${agent}: live ${seconds(liveMs)} after the launch request (${own}; over ` +
        `${seconds(OWN_START_FITS_MS)}, so the spec's ${seconds(LIVE_WITHIN_MS)} is reported, not held)`,
      failure: null,
    };
  }
  return {
    line: `${agent}: live ${seconds(liveMs)} after the launch request (held to ${
      seconds(LIVE_WITHIN_MS)
    }; ${own})`,
    failure: liveMs > LIVE_WITHIN_MS
      ? `${agent} was live ${seconds(liveMs)} after the launch request; the spec asks for ` +
        `${seconds(LIVE_WITHIN_MS)} (${own})`
      : null,
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
