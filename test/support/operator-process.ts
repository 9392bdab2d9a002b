import { spawn } from 'node:child_process';

/** What one run of a command-line program did. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end (killed after `timeoutMs`, 60 s by default) with stdout and stderr
 * as pipes, and only `PATH`, `HOME` and `env` in its environment: what the operator's CLI sees
 * in a script.
 */
export function runProcess(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  return new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish\n${run.stdout}\n${run.stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      run.code = code;
      resolve(run);
    });
  });
}
