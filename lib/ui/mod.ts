/**
 * What the pages are made of: the document and its style, the island bundle and the island wrapper (server side),
 * and the pure views the pages render from (sessions, a transcript's messages, the heat map's year, the words).
 *
 * The islands import the views they share with the pages (`words.ts`, `glance.ts`, `session_view.ts`,
 * `usage_view.ts`) directly: they are bundled for the browser, and this face also carries server-only code.
 * @module
 */
export { type IslandBundle, islandBundle, terminalBundle, terminalStyle } from "./bundle.ts";
export { type DocumentProps, pageResponse, refusalPage, shellPage } from "./document.tsx";
export { Island } from "./island.tsx";
export { hasHit, Highlighted, Markdown, TRANSCRIPT_CSS } from "./markdown.tsx";
export { type DayCell, yearGrid } from "./heat_grid.ts";
export { Diff, type DiffLine, lineDiff, Patch } from "./diff.tsx";
export { type SessionFacts, type SessionView, sessionView, sortViews, withActivity } from "./session_view.ts";
export { type TokenTotals, type TranscriptEntry, transcriptOf, windowOf } from "./transcript_view.ts";
export { contextText, statusWord } from "./words.ts";
