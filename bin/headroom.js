#!/usr/bin/env node
// The `headroom` command: the bundled CLI (built by `npm run build` into dist/cli.js).
require('../dist/cli.js');
