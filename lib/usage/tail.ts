/**
 * The end of a file that an agent keeps appending to (a transcript, a rollout): its last records are the newest,
 * and reading the whole file on every usage read would cost more than the call it replaces.
 * @module
 */

/** The last `maxBytes` of a file as text, without the partial first line when the file was cut. */
export function readTail(path: string, maxBytes: number): string {
  const file = Deno.openSync(path);
  try {
    const size = file.statSync().size;
    const length = Math.min(size, maxBytes);
    file.seekSync(size - length, Deno.SeekMode.Start);
    const buf = new Uint8Array(length);
    let read = 0;
    while (read < length) {
      const n = file.readSync(buf.subarray(read));
      if (n === null) break;
      read += n;
    }
    const text = new TextDecoder().decode(buf.subarray(0, read));
    if (length === size) return text;
    const firstBreak = text.indexOf("\n");
    return firstBreak === -1 ? "" : text.slice(firstBreak + 1);
  } finally {
    file.close();
  }
}
