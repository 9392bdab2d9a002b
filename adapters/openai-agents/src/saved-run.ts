/**
 * What the gate keeps in a pending approval's `run_state`: the paused run, and enough to tell
 * which run it is and which save of it is the newest. Every pending approval of one run carries a
 * copy; after each decision the gate writes the new state into those still waiting.
 */
export interface SavedRun {
  /** Which run: one id per `gate.run`, kept across resumptions and restarts. */
  run_id: string;
  /** The `name` of the agent the run started with: `RunState.fromString` needs that agent. */
  agent: string;
  /** Grows with every save of the run; the highest one is the state to resume. */
  seq: number;
  /** `RunState.toString()`: the run paused at its interruptions. It holds no approval token. */
  state: string;
}

/** Marks a `run_state` as this adapter's, so a record another adapter wrote is left alone. */
const FORMAT = 'countersign-openai-agents/1';

/** The `run_state` string of a {@link SavedRun}. */
export function encodeSavedRun(run: SavedRun): string {
  return JSON.stringify({ format: FORMAT, ...run });
}

/** The {@link SavedRun} in a `run_state`, or undefined when the record holds none of this adapter's. */
export function decodeSavedRun(run_state: string | undefined): SavedRun | undefined {
  if (run_state === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(run_state);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { format, run_id, agent, seq, state } = parsed as Record<string, unknown>;
  if (format !== FORMAT || typeof run_id !== 'string' || typeof agent !== 'string' || typeof seq !== 'number' || typeof state !== 'string') return undefined;
  return { run_id, agent, seq, state };
}
