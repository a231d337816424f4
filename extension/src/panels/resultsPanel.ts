import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { FromWebview, PanelContent, ToWebview } from '../../../webview/src/messages';

/**
 * The results panel: one webview that shows triage reports, snapshot summaries and runs. Content is sent
 * after the webview says `ready`, and the webview keeps it with setState, so the panel survives
 * being hidden without `retainContextWhenHidden`.
 */
export class ResultsPanel {
  static readonly viewType = 'headroom.results';
  private static current: ResultsPanel | undefined;
  /** Answers the webview's requests for more work (a replay at another capacity). */
  private static requestHandler: ((message: Extract<FromWebview, { type: 'replayAtCapacity' }>) => Promise<ToWebview | undefined>) | undefined;

  static onRequest(handler: typeof ResultsPanel.requestHandler): vscode.Disposable {
    ResultsPanel.requestHandler = handler;
    return new vscode.Disposable(() => (ResultsPanel.requestHandler = undefined));
  }

  private readonly disposables: vscode.Disposable[] = [];
  /** True while a loaded webview script can receive messages. */
  private ready = false;
  /** What the panel should show; sent again whenever the webview (re)loads. */
  private latest: PanelContent | undefined;

  /** Shows `content` in the panel, creating it beside the active editor if needed. */
  static show(extensionUri: vscode.Uri, content: PanelContent): void {
    if (!ResultsPanel.current) {
      const panel = vscode.window.createWebviewPanel(ResultsPanel.viewType, 'Headroom', vscode.ViewColumn.Beside, ResultsPanel.options(extensionUri));
      ResultsPanel.current = new ResultsPanel(panel, extensionUri);
    }
    ResultsPanel.current.panel.reveal(undefined, true);
    ResultsPanel.current.post(content);
  }

  /** Restores a panel VS Code kept across a reload; its webview restores its own state. */
  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri): void {
    panel.webview.options = ResultsPanel.options(extensionUri);
    ResultsPanel.current = new ResultsPanel(panel, extensionUri);
  }

  private static options(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')] };
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
  ) {
    panel.webview.html = this.html();
    panel.onDidDispose(() => this.dispose(), undefined, this.disposables);
    // A hidden webview is discarded (no retainContextWhenHidden) and reloads when shown again:
    // until it says `ready`, messages would be lost.
    panel.onDidChangeViewState((e) => {
      if (!e.webviewPanel.visible) this.ready = false;
    }, undefined, this.disposables);
    panel.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m), undefined, this.disposables);
  }

  private post(content: PanelContent): void {
    this.latest = content;
    if (!this.ready) return;
    const message: ToWebview = { type: 'show', content };
    void this.panel.webview.postMessage(message);
  }

  private receive(message: FromWebview): void {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        if (this.latest) this.post(this.latest);
        break;
      case 'replayAtCapacity':
        void ResultsPanel.requestHandler?.(message).then((reply) => {
          if (reply) void this.panel.webview.postMessage(reply);
        });
        break;
      case 'openFile': {
        const line = Math.max(0, message.line - 1);
        const uri = message.target.includes('://') ? vscode.Uri.parse(message.target) : vscode.Uri.file(message.target);
        void vscode.window.showTextDocument(uri, {
          viewColumn: vscode.ViewColumn.One,
          selection: new vscode.Range(line, 0, line, 0),
        });
        break;
      }
    }
  }

  private html(): string {
    const webview = this.panel.webview;
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'results.css'));
    const bundledStyle = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.css'));
    // Components from @vscode-elements adopt constructed stylesheets; 'unsafe-inline' covers the
    // fallback <style> tags on engines without adoptedStyleSheets. Scripts need the nonce.
    const csp = [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src ${webview.cspSource} 'unsafe-inline'`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${bundledStyle.toString()}">
<link rel="stylesheet" href="${style.toString()}">
<title>Headroom</title>
</head>
<body>
<main id="root"><p class="empty">Loading…</p></main>
<script type="module" nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  private dispose(): void {
    ResultsPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
