/**
 * Gemini CLI's chats before 0.39 (docs/agents/gemini_old_versions.md): one JSON document per session,
 * `{sessionId, projectHash, startTime, lastUpdated, kind?, summary?, directories?, messages: [...]}`, written
 * pretty-printed (`JSON.stringify(conversation, null, 2)`) and rewritten whole on every change.
 *
 * The byte pass hands such a file over line by line, like any transcript. This scanner follows the JSON structure
 * across those lines and hands on each top-level member and each element of `messages` as soon as it is complete,
 * so memory is bounded by the largest message, never the whole file. It needs no closing line: the CLI writes no
 * newline after the final `}`, so the byte pass never hands that last line over; {@link JsonChatScanner.end}
 * takes the last member as it stands.
 * @module
 */

/** Where the scanner hands what it found. */
export interface JsonChatSink {
  /** A top-level member other than `messages`, its value parsed. */
  member(key: string, value: unknown): void;
  /** One element of the top-level `messages` list, parsed. */
  message(value: unknown): void;
  /** A member or message that is not JSON (a file cut mid-write), or one past the size bounds. */
  bad(): void;
}

/** How much text the scanner holds at once. */
export interface JsonChatLimits {
  /** A top-level member longer than this is not one the reader needs (a list it does not read): skipped. */
  memberChars: number;
  /** A message longer than this (a huge tool output) is skipped and counted as bad. */
  messageChars: number;
}

const LIMITS: JsonChatLimits = { memberChars: 1 << 20, messageChars: 64 << 20 };

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const MESSAGES_KEY = /^\s*"messages"\s*:\s*$/;

/** A scanner of one JSON chat document. */
export interface JsonChatScanner {
  /** The document's next line, without its newline. */
  line(text: string): void;
  /** No more lines: the top-level member still open (the last one, whose closing line never came) is handed on. */
  end(): void;
}

/** A scanner of one JSON chat document, fed its lines in order. */
export function jsonChatScanner(sink: JsonChatSink, limits: JsonChatLimits = LIMITS): JsonChatScanner {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let inMessages = false;
  /** the text of the top-level member being read, null when none is (inside `messages`, or skipped) */
  let member: string | null = null;
  /** the text of the `messages` element being read */
  let element: string | null = null;
  let oversized = false;

  const endMember = (text: string) => {
    if (text.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(`{${text}}`);
    } catch {
      return sink.bad();
    }
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) sink.member(key, value);
  };
  const endElement = (text: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return sink.bad();
    }
    sink.message(parsed);
  };

  return {
    line(s) {
      // the start of the text of this line not yet added to the member or element being read
      let mark = 0;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          if (depth === 0) {
            member = "";
            mark = i + 1;
          } else if (
            depth === 1 && c === OPEN_BRACKET && member !== null &&
            MESSAGES_KEY.test(member + s.slice(mark, i))
          ) {
            inMessages = true;
            member = null;
          } else if (depth === 2 && inMessages && element === null) {
            element = "";
            oversized = false;
            mark = i;
          }
          depth++;
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          depth--;
          if (depth === 2 && inMessages && element !== null) {
            if (oversized) sink.bad();
            else endElement(element + s.slice(mark, i + 1));
            element = null;
            mark = i + 1;
          } else if (depth === 1 && inMessages) inMessages = false;
          else if (depth === 0 && member !== null) {
            endMember(member + s.slice(mark, i));
            member = null;
            mark = i + 1;
          }
        } else if (c === COMMA && depth === 1) {
          if (member !== null) endMember(member + s.slice(mark, i));
          member = "";
          mark = i + 1;
        }
      }
      const rest = s.slice(mark);
      if (element !== null && !oversized) {
        element += `${rest}\n`;
        if (element.length > limits.messageChars) {
          // keep scanning its structure, but not its text
          oversized = true;
          element = "";
        }
      } else if (member !== null) {
        member += `${rest}\n`;
        if (member.length > limits.memberChars) member = null;
      }
    },
    end() {
      // a member cut mid-write does not parse and counts as bad, and so does a message never closed
      if (member !== null && depth === 1) endMember(member);
      if (element !== null) sink.bad();
      member = null;
      element = null;
    },
  };
}
