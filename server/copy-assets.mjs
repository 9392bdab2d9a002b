// Copies what the built server reads as files into dist/, where tsc puts only modules: the built
// operator console and the built approver PWA (so that a deployed server, `pnpm deploy --prod`,
// serves them). `@countersign/operator-console` and `@countersign/approver-pwa` are development
// dependencies of the server so that `pnpm build` builds them first.
import { cpSync, existsSync, rmSync } from 'node:fs';

for (const [from, to, name] of [
  ['../operator-console/dist/', './dist/operator-console/', 'operator-console'],
  ['../approver-pwa/dist/', './dist/pwa/', 'approver-pwa'],
]) {
  const source = new URL(from, import.meta.url);
  if (!existsSync(source)) throw new Error(`${name}/dist is missing: build it first (pnpm build at the root does)`);
  const target = new URL(to, import.meta.url);
  // A fresh copy: hashed files of an older build must not linger and be served.
  rmSync(target, { recursive: true, force: true });
  cpSync(source, target, { recursive: true });
}
