/**
 * Islands: the parts of a server-rendered page that come alive in the browser. On the server an island renders
 * its component inside a marker element, with its props in a JSON script beside it; in the browser
 * `islands/client.tsx` finds each marker and hydrates the same component with the same props, so the first paint
 * is the server's and nothing shifts when the script arrives.
 * @module
 */
import type { ComponentType } from "preact";

/** The attribute that marks an island's root element. */
export const ISLAND_ATTR = "data-island";

/** Serialises props for an inline `<script type="application/json">`: `<` is escaped so no tag can end it. */
export function islandProps(props: unknown): string {
  return JSON.stringify(props).replace(/</g, "\\u003c");
}

/** Renders `component` as an island named `name` (the name the client registry knows it by). */
export function Island<P extends Record<string, unknown>>(
  { name, component: Component, props }: { name: string; component: ComponentType<P>; props: P },
) {
  return (
    <>
      <script
        type="application/json"
        data-island-props={name}
        dangerouslySetInnerHTML={{ __html: islandProps(props) }}
      />
      <div {...{ [ISLAND_ATTR]: name }}>
        <Component {...props} />
      </div>
    </>
  );
}
