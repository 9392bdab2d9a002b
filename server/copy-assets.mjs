// Copies what the built server reads as files next to its modules into dist/, where tsc puts only
// modules: the console's page, styles and scripts, and the built approver PWA (so that a deployed
// server, `pnpm deploy --prod`, serves it; `@countersign/approver-pwa` is a development dependency
// of the server so that `pnpm build` builds it first).
import { cpSync, existsSync } from 'node:fs';

cpSync(new URL('./src/console/assets/', import.meta.url), new URL('./dist/console/assets/', import.meta.url), { recursive: true });
const pwa = new URL('../approver-pwa/dist/', import.meta.url);
if (!existsSync(pwa)) throw new Error('approver-pwa/dist is missing: build the PWA first (pnpm build at the root does)');
cpSync(pwa, new URL('./dist/pwa/', import.meta.url), { recursive: true });
