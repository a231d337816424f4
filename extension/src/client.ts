import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';

/** Port for "Attach to Server" in .vscode/launch.json when the server runs in debug mode. */
const SERVER_INSPECT_PORT = 6019;

/** Restarts allowed within the window below before the client gives up and says so. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60_000;

/**
 * @param runsDir where the server stores runs: the workspace's storage, so runs stay with their
 *   workspace and survive restarts of the server and of the editor.
 */
export function createClient(serverModule: string, outputChannel: vscode.LogOutputChannel, runsDir: string): LanguageClient {
  const env = { ...process.env, HEADROOM_RUNS_DIR: runsDir };
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc, options: { env } },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { env, execArgv: ['--nolazy', `--inspect=${SERVER_INSPECT_PORT}`] } },
  };
  const restarts: number[] = [];
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'file', language: 'cpp' },
      { scheme: 'file', language: 'cuda-cpp' },
      // Launch scripts: their torchrun arguments and PYTORCH_CUDA_ALLOC_CONF feed the analysis.
      { scheme: 'file', language: 'shellscript' },
    ],
    outputChannel,
    synchronize: { configurationSection: 'headroom' },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        const now = Date.now();
        restarts.push(now);
        while (restarts.length > 0 && now - restarts[0]! > RESTART_WINDOW_MS) restarts.shift();
        if (restarts.length > MAX_RESTARTS) {
          outputChannel.error(`The Headroom server stopped ${restarts.length} times in three minutes; not restarting. Use "Headroom: Restart Server" after fixing the cause shown above.`);
          return { action: CloseAction.DoNotRestart };
        }
        return { action: CloseAction.Restart };
      },
    },
  };
  return new LanguageClient('headroom', 'Headroom', serverOptions, clientOptions);
}
