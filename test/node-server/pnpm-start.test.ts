import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** `pnpm start` builds first and stops cleanly on SIGINT and SIGTERM from the terminal. */

describe('pnpm start, stopped from the terminal', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;

  /**
   * Runs the start script's command after its build step, through `sh -c` in a process group of
   * its own as pnpm runs it, and signals the whole group once the server listens: what Ctrl-C in a
   * terminal does. A shell that waits for the server dies of the SIGINT itself, and pnpm then
   * reports `ELIFECYCLE ... exit code 130` however cleanly the server stopped.
   */
  function runUntilSignalled(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
    const command = script.replace(/^pnpm build && /, '');
    const child = spawn('sh', ['-c', command], {
      cwd: root,
      detached: true,
      env: { PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}`, HOME: process.env.HOME, PORT: '0', NODE_ENV: 'development' } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let signalled = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        process.kill(-child.pid!, 'SIGKILL');
        reject(new Error(`the server did not listen and stop in time\n${output}`));
      }, 40_000);
      const read = (chunk: string) => {
        output += chunk;
        if (!signalled && output.includes('countersign listening')) {
          signalled = true;
          process.kill(-child.pid!, signal);
        }
      };
      child.stdout.setEncoding('utf8').on('data', read);
      child.stderr.setEncoding('utf8').on('data', read);
      child.once('exit', (code, exitSignal) => {
        clearTimeout(timer);
        resolve({ code, signal: exitSignal, output });
      });
    });
  }

  it('keeps building first', () => {
    expect(script).toMatch(/^pnpm build && /);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops cleanly and exits 0 on %s to the whole process group',
    async (signal) => {
      const run = await runUntilSignalled(signal);
      expect([run.code, run.signal], run.output).toEqual([0, null]);
      expect(run.output).toContain('"msg":"countersign stopping"');
      expect(run.output).not.toContain('did not stop in time');
    },
    60_000,
  );
});
