/**
 * The results webview: draws whatever the extension sends (a triage report, a snapshot summary, a
 * run's outcome matrix) and keeps the last content in the webview state, so the panel restores
 * itself after being hidden or after a reload.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-table/index.js';
import '@vscode-elements/elements/dist/vscode-table-body/index.js';
import '@vscode-elements/elements/dist/vscode-table-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-header/index.js';
import '@vscode-elements/elements/dist/vscode-table-header-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-row/index.js';
import type { Post } from './dom';
import type { FromWebview, PanelContent, ToWebview } from './messages';
import { renderReplay } from './views/replay';
import { renderRun } from './views/run';
import { renderTriage } from './views/triage';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): PanelContent | undefined;
  setState(state: PanelContent): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post: Post = (message) => vscode.postMessage(message);
const root = document.getElementById('root')!;

function render(content: PanelContent): void {
  switch (content.view) {
    case 'triage':
      root.replaceChildren(...renderTriage(post, content.report));
      break;
    case 'run':
      root.replaceChildren(...renderRun(post, content.run));
      break;
    case 'replay':
      root.replaceChildren(...renderReplay(post, content));
      break;
  }
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'show':
      vscode.setState(message.content);
      render(message.content);
      break;
    case 'replayAtCapacity': {
      const current = vscode.getState();
      if (current?.view !== 'replay' || current.file !== message.file) break;
      const content: PanelContent = { ...current, atCapacity: message.result };
      vscode.setState(content);
      render(content);
      break;
    }
  }
});

const saved = vscode.getState();
if (saved) render(saved);
post({ type: 'ready' });
