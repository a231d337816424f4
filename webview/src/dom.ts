import type { FromWebview } from './messages';

/** Sends a message to the extension host. */
export type Post = (message: FromWebview) => void;

/** Creates an element with attributes and children; text children are escaped by construction. */
export function h(tag: string, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

/** A @vscode-elements table. */
export function table(headers: string[], rows: Array<Array<Node | string>>): HTMLElement {
  return h(
    'vscode-table',
    { zebra: '', 'bordered-rows': '', resizable: '' },
    h('vscode-table-header', { slot: 'header' }, ...headers.map((t) => h('vscode-table-header-cell', {}, t))),
    h('vscode-table-body', { slot: 'body' }, ...rows.map((r) => h('vscode-table-row', {}, ...r.map((c) => h('vscode-table-cell', {}, c))))),
  );
}

/** A link that asks the extension to open `target` (a URI or a local path) at `line`. */
export function fileLink(post: Post, label: string, target: string, line: number): HTMLElement {
  const link = h('a', { href: '#', class: 'frame' }, label);
  link.addEventListener('click', (e) => {
    e.preventDefault();
    post({ type: 'openFile', target, line });
  });
  return link;
}
