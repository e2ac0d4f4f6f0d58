/**
 * The HTML document every page shares: the style (light and dark, dense, no layout shift on poll), the tab bar,
 * and the island script. Server-rendered with preact-render-to-string.
 * @module
 */
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import { TOKEN_COOKIE } from "../server/security.ts";

/** The page's style. Numbers are tabular so a changing count never moves its neighbours. */
export const STYLE = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1d1d1b; --muted: #6b6b66; --line: #e4e3df; --accent: #2f6f5e;
  --live: #2f6f5e; --warn: #a15c00; --chip: #ecebe7; font: 14px/1.4 system-ui, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #181816; --fg: #e9e8e4; --muted: #9a9993; --line: #2e2d2a;
  --accent: #6fc1a6; --live: #6fc1a6; --warn: #e0a352; --chip: #2a2926; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
header { position: sticky; top: 0; background: var(--bg); border-bottom: 1px solid var(--line); padding: 8px 16px;
  display: flex; gap: 16px; align-items: baseline; z-index: 1; }
header h1 { font-size: 15px; margin: 0; }
nav a { color: var(--muted); margin-right: 12px; text-decoration: none; }
nav a[aria-current=page] { color: var(--fg); font-weight: 600; }
main { padding: 8px 16px 32px; }
table.sessions { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; table-layout: fixed; }
table.sessions th { text-align: left; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--line);
  padding: 4px 6px; }
table.sessions td { border-bottom: 1px solid var(--line); padding: 4px 6px; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
table.sessions col.agent { width: 72px; } table.sessions col.project { width: 12%; }
table.sessions col.status { width: 80px; } table.sessions col.activity { width: 16%; }
table.sessions col.context { width: 104px; } table.sessions col.closeout { width: 88px; }
table.sessions col.turns { width: 56px; } table.sessions col.seen { width: 96px; }
td.num, th.num { text-align: right; }
tr.hidden-row { opacity: .6; }
.chip { background: var(--chip); border-radius: 4px; padding: 1px 6px; font-size: 12px; }
td.status { font-weight: 600; }
.empty { color: var(--muted); padding: 24px 0; }
`;

/** Props of the document. */
export interface DocumentProps {
  title: string;
  current: "sessions" | "projects" | "activity";
  bundleUrl: string;
  pollMs: number;
  children: ComponentChildren;
}

function Document({ title, current, bundleUrl, pollMs, children }: DocumentProps) {
  const tab = (id: DocumentProps["current"], href: string, label: string) => (
    <a href={href} aria-current={current === id ? "page" : undefined}>{label}</a>
  );
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body data-poll-ms={String(pollMs)}>
        <header>
          <h1>asm</h1>
          <nav>
            {tab("sessions", "/", "Sessions")}
            {tab("projects", "/projects", "Projects")}
            {tab("activity", "/activity", "Activity")}
          </nav>
        </header>
        <main>{children}</main>
        <script type="module" src={bundleUrl}></script>
      </body>
    </html>
  );
}

/** A full HTML response: the document, no caching, and the install token as a SameSite=Strict cookie. */
export function pageResponse(props: DocumentProps, token: string): Response {
  const html = "<!doctype html>" + renderToString(<Document {...props} />);
  return new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "set-cookie": `${TOKEN_COOKIE}=${token}; Path=/; SameSite=Strict; HttpOnly`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'",
    },
  });
}
