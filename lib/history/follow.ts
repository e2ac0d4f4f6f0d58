/**
 * Following one session's transcript as it grows, for the session page's stream: from the cursor its page was
 * drawn at, each call reads what the session's files gained (whole lines, bounded per call) and answers the new
 * entries, and the token totals when they moved. A record re-appended under its id comes again under the same key
 * (the page replaces it in place). A file that shrank below the cursor was rewritten, not appended to: the page
 * is asked to load again. The files are listed again on every call, so a file the session starts later (a resume
 * in a new rollout) is followed from its first byte.
 * @module
 */
import type { TranscriptCapability } from "../derive/mod.ts";
import { readGrowth } from "../files/mod.ts";
import { type TokenTotals, type TranscriptEntry, transcriptOf, UsageTotals } from "../ui/transcript_view.ts";
import {
  type Cursor,
  type DetailDeps,
  keyedLines,
  readerOf,
  readTranscript,
  type SessionFile,
  sessionFiles,
} from "./detail.ts";

/** The most one call reads of one file: a burst of output arrives over a few calls, never as one huge read. */
const MAX_GROWTH_BYTES = 1024 * 1024;

/** What one call found. */
export interface FollowStep {
  entries: TranscriptEntry[];
  /** The totals, when they moved; null when not. */
  totals: TokenTotals | null;
  /** A file was rewritten: the page must be drawn again. */
  reload: boolean;
}

/** One page's follower of one session's transcript. */
export class TranscriptFollower {
  #deps: DetailDeps;
  #asmId: string;
  #transcripts: TranscriptCapability;
  #cursor: Cursor;
  #totals: UsageTotals;
  #last: string;

  private constructor(
    deps: DetailDeps,
    asmId: string,
    transcripts: TranscriptCapability,
    cursor: Cursor,
    totals: UsageTotals,
  ) {
    this.#deps = deps;
    this.#asmId = asmId;
    this.#transcripts = transcripts;
    this.#cursor = cursor;
    this.#totals = totals;
    this.#last = JSON.stringify(totals.totals());
  }

  /**
   * A follower from `cursor` (what the page was drawn from), or null when asm has no such session or cannot read
   * its agent's transcripts. The token totals start from what lies before the cursor (one bounded read), so the
   * lines after it are counted once, when they are followed.
   */
  static async open(deps: DetailDeps, asmId: string, cursor: Cursor): Promise<TranscriptFollower | null> {
    const row = deps.ledger.session(asmId);
    if (!row) return null;
    const { transcripts } = readerOf(deps, row.agent);
    if (!transcripts) return null;
    const files = sessionFiles(deps.ledger, row);
    const read = await readTranscript(deps, files, transcripts);
    const totals = new UsageTotals();
    const before = read.lines.filter((l) => {
      const [file, at] = l.key.split("@");
      return cursor.has(file) && Number(at) < cursor.get(file)!;
    });
    transcriptOf(before, (line) => transcripts.viewLine(line), totals);
    return new TranscriptFollower(deps, asmId, transcripts, new Map(cursor), totals);
  }

  /** Where the next call goes on reading (a page that reconnects hands it back). */
  cursor(): Cursor {
    return new Map(this.#cursor);
  }

  /** What the transcript gained since the last call. */
  async next(): Promise<FollowStep> {
    const row = this.#deps.ledger.session(this.#asmId);
    if (!row) return { entries: [], totals: null, reload: false };
    const stores = this.#transcripts.stores(this.#deps.env);
    const lines = [];
    for (const file of sessionFiles(this.#deps.ledger, row)) {
      const grown = await this.#grow(file, stores);
      if (grown === "reload") return { entries: [], totals: null, reload: true };
      for (const line of grown) lines.push(line);
    }
    if (lines.length === 0) return { entries: [], totals: null, reload: false };
    const { entries, totals } = transcriptOf(lines, (line) => this.#transcripts.viewLine(line), this.#totals);
    const said = JSON.stringify(totals);
    const moved = said !== this.#last;
    this.#last = said;
    return { entries, totals: moved ? totals : null, reload: false };
  }

  async #grow(file: SessionFile, stores: readonly string[]) {
    const from = this.#cursor.get(file.key) ?? 0;
    let growth;
    try {
      growth = await readGrowth(file.path, from, MAX_GROWTH_BYTES, this.#deps.files, { within: stores });
    } catch {
      // gone (a copy holds it now), not a file asm reads, or unreadable this time: nothing new to follow now
      return [];
    }
    if (growth.size < from) return "reload" as const;
    this.#cursor.set(file.key, growth.next);
    return keyedLines(growth.bytes, from, file.key).lines;
  }
}
