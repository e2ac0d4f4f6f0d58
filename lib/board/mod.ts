/**
 * The board: the outliner protocol (three lists by id, cards, stamps, refusals of stale writes), its backends
 * (`markdown`, the default; `workflowy`; `memory` for tests), the card grammar, the pass's retry and the board file's watch.
 * Nothing here names an agent: agent tags come from the caller (agents.toml's `tag`).
 * @module
 */
export {
  BoardChanged,
  type BoardRead,
  BoardUnusable,
  type Card,
  LIST_ROLES,
  type ListIds,
  type ListRole,
  type Outliner,
  type Position,
  type Written,
} from "./protocol.ts";
export { type MemoryOutliner, memoryOutliner, type OutlinerCall } from "./memory.ts";
export {
  type CardLine,
  cardName,
  DROPPED_TAG,
  hasTag,
  isTagWord,
  parseCard,
  projectTag,
  withoutTag,
  withTag,
  withTagOf,
  withTitle,
} from "./grammar.ts";
export {
  boardLocation,
  type MarkdownOptions,
  type MarkdownOutliner,
  markdownOutliner,
  MAX_BOARD_BYTES,
  MEMO_MS,
} from "./markdown.ts";
export { type BoardFileStat, type BoardIo, REAL_BOARD_IO, type WriteOptions } from "./markdown_io.ts";
export { DEFAULT_HEADINGS, defaultBoard } from "./markdown_parse.ts";
export { BoardBusy, DEFAULT_TRIES, withFreshBoard } from "./retry.ts";
export { escapeText, plainOf, richWithPlain } from "./rich_text.ts";
export { type WorkflowyOptions, type WorkflowyOutliner, workflowyOutliner } from "./workflowy.ts";
export {
  readKey,
  WORKFLOWY_URL,
  WorkflowyApi,
  type WorkflowyApiOptions,
  type WorkflowyNode,
} from "./workflowy_api.ts";
export { type BoardWatch, SETTLE_MS, watchBoard, type WatchOptions } from "./watch.ts";
