/**
 * A page drawn on the server: the document, with the islands' live cells of its own for this one draw
 * (islands/live_store.ts `drawnAlone`), so no page draws what an earlier request left in them.
 * @module
 */
import { type DocumentProps, pageResponse } from "../../lib/ui/mod.ts";
import { drawnAlone } from "../../islands/live_store.ts";

/** The page's response; every page route answers with this. */
export function islandPage(props: DocumentProps, status = 200): Response {
  return drawnAlone(() => pageResponse(props, status));
}
