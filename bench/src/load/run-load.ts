import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../infra/child.ts';
import type { LoadResult, LoadSpec } from './spec.ts';

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

/**
 * Runs one load in a separate process (`node --import tsx worker.ts spec.json`) and answers its
 * result. The process is started fresh for every run, so one run's garbage is not the next's.
 * @throws Error when the load process fails.
 */
export async function runLoad(spec: Omit<LoadSpec, 'resultFile'>, workDir: string): Promise<LoadResult> {
  const specFile = join(workDir, `${spec.name}.spec.json`);
  const resultFile = join(workDir, `${spec.name}.result.json`);
  writeFileSync(specFile, JSON.stringify({ ...spec, resultFile }));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, specFile], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`load process for ${spec.name} exited with ${code}`))));
  });
  return JSON.parse(readFileSync(resultFile, 'utf8')) as LoadResult;
}
