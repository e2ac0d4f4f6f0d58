/**
 * The end of a file that an agent keeps appending to (a transcript, a rollout): its last records are the newest,
 * and reading the whole file on every usage read would cost more than the call it replaces.
 * @module
 */
import { readTailSync } from "../files/mod.ts";

/**
 * The last `maxBytes` of a regular file as text, whole lines only. Throws NotFound when there is none and
 * RefusedFile for a link, FIFO or device.
 */
export function readTail(path: string, maxBytes: number): string {
  return new TextDecoder().decode(readTailSync(path, maxBytes).bytes);
}
