/**
 * Text from outside (a transcript, a log, another program) as a terminal may print it: its control characters
 * would move the cursor, recolour or rewrite the screen, so they are shown as U+FFFD instead.
 * @module
 */

/** Control characters shown as U+FFFD; line breaks and tabs kept (a multi-line text stays readable). */
export function plainText(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\ufffd");
}

/** One line of a listing: line breaks and tabs become spaces, every other control character U+FFFD. */
export function plainLine(text: string): string {
  return plainText(text.replace(/[\r\n\t]+/g, " "));
}
