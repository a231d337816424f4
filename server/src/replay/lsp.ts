import { fileURLToPath } from 'node:url';
import type { ServerContext } from '../context';
import { SnapshotSummaryRequest } from '../protocol';
import { summarizeSnapshotFile } from './summary';

export function register(ctx: ServerContext): void {
  ctx.connection.onRequest(SnapshotSummaryRequest.type, (params) =>
    ctx.track('snapshot summary', () =>
      summarizeSnapshotFile(params.uri.startsWith('file:') ? fileURLToPath(params.uri) : params.uri),
    ),
  );
}
