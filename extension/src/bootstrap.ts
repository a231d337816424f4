import { existsSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Finds the server bundle. `__HEADROOM_SERVER_DEBUG` points at another build (for debugging the
 * server from a checkout); otherwise it is `dist/server.js` beside this bundle.
 */
export function serverModulePath(extensionPath: string): string {
  const override = process.env['__HEADROOM_SERVER_DEBUG'];
  const candidate = override && override.length > 0 ? override : path.join(extensionPath, 'dist', 'server.js');
  if (!existsSync(candidate)) {
    throw new Error(`Headroom's server bundle is missing at ${candidate}; reinstall the extension or run "npm run build".`);
  }
  return candidate;
}
