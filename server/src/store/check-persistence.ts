import type { Cluster, Redis } from 'ioredis';
import type { PersistenceSetting } from '../config/index.ts';

/** What one master said about its persistence. */
export interface NodePersistence {
  /** `host:port` of the master. */
  node: string;
  /** `on`: AOF or an RDB schedule; `off`: neither; `unknown`: `CONFIG GET` was refused or failed (`error` says how). */
  state: 'on' | 'off' | 'unknown';
  /** `appendonly` and `save` as Redis answered them. */
  appendonly?: string;
  save?: string;
  error?: string;
}

/** What start-up does about the persistence found: go on silently, go on with a warning, or refuse. */
export interface PersistenceVerdict {
  action: 'ok' | 'warn' | 'refuse';
  /** One line for the log or the refusal, naming the setting that changes it. */
  message?: string;
  nodes: NodePersistence[];
}

/** The masters to ask: the one server, or every master a Cluster client knows of. */
function mastersOf(redis: Redis | Cluster): Redis[] {
  return redis.isCluster ? (redis as Cluster).nodes('master') : [redis as Redis];
}

/** `CONFIG GET name` answers `[name, value]` (RESP2); `''` when the parameter is unknown. */
async function configValue(node: Redis, name: string): Promise<string> {
  const reply = (await node.call('CONFIG', 'GET', name)) as unknown;
  return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : '';
}

/**
 * Asks each master whether it keeps its data across a restart: `appendonly yes`, or a non-empty
 * `save` schedule (RDB). A master with neither comes back empty from any restart, and its replicas
 * copy that emptiness (Redis's replication documentation: "Safety of replication when master has
 * persistence turned off"), so every master is asked, replicas are not.
 *
 * A `CONFIG GET` that fails (`ERR unknown command` on a managed Redis that renamed it, `NOPERM` for
 * an ACL user without `+config`) makes that master `unknown`; it never throws.
 */
export async function readPersistence(redis: Redis | Cluster): Promise<NodePersistence[]> {
  return Promise.all(
    mastersOf(redis).map(async (node): Promise<NodePersistence> => {
      const name = `${node.options.host ?? '?'}:${node.options.port ?? '?'}`;
      try {
        const [appendonly, save] = await Promise.all([configValue(node, 'appendonly'), configValue(node, 'save')]);
        return { node: name, state: appendonly === 'yes' || save.trim() !== '' ? 'on' : 'off', appendonly, save };
      } catch (error) {
        return { node: name, state: 'unknown', error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

/**
 * Decides what start-up does about the persistence the masters reported (see docs/security.md,
 * "Redis persistence"). In development a problem is only a warning. In production:
 * - a master with persistence off refuses the start, unless `none-accepted`;
 * - a master that could not be asked refuses it too, unless `managed` or `none-accepted`: an
 *   identity product that cannot tell whether its approvals and audit trail survive a restart
 *   does not guess that they do; the operator says where the durability comes from.
 */
export function judgePersistence(nodes: NodePersistence[], options: { production: boolean; setting: PersistenceSetting }): PersistenceVerdict {
  const off = nodes.filter((node) => node.state === 'off');
  const unknown = nodes.filter((node) => node.state === 'unknown');
  const loss = 'a Redis restart loses every pending approval, approval token, enrolled device and client, and empties the audit chain';
  if (off.length > 0) {
    const which = off.map((node) => node.node).join(', ');
    if (options.setting === 'none-accepted') return { action: 'warn', message: `Redis persistence is off on ${which} (appendonly no, no save schedule) and REDIS_PERSISTENCE=none-accepted: ${loss}.`, nodes };
    const message = `Redis persistence is off on ${which} (appendonly no, no save schedule): ${loss}. Turn on AOF (appendonly yes, appendfsync everysec or always) or RDB snapshots, or set REDIS_PERSISTENCE=none-accepted to accept that loss.`;
    return { action: options.production ? 'refuse' : 'warn', message, nodes };
  }
  if (unknown.length > 0) {
    const which = unknown.map((node) => `${node.node} (${node.error})`).join(', ');
    if (options.setting !== 'required') return { action: 'warn', message: `Redis persistence could not be checked on ${which}; REDIS_PERSISTENCE=${options.setting} says it is the provider's to keep.`, nodes };
    const message = `Redis persistence could not be checked: CONFIG GET was refused on ${which}. Set REDIS_PERSISTENCE=managed when the provider keeps the data (a managed Redis with persistence), or REDIS_PERSISTENCE=none-accepted to accept that ${loss}.`;
    return { action: options.production ? 'refuse' : 'warn', message, nodes };
  }
  return { action: 'ok', nodes };
}

/**
 * Checks the Redis's persistence at start-up ({@link readPersistence}, {@link judgePersistence}),
 * logs a warning, and throws on a refusal.
 *
 * @throws Error `invalid configuration: Redis persistence …` when production refuses the Redis.
 */
export async function checkPersistence(redis: Redis | Cluster, options: { production: boolean; setting: PersistenceSetting; warn: (message: string) => void }): Promise<PersistenceVerdict> {
  const verdict = judgePersistence(await readPersistence(redis), options);
  if (verdict.action === 'refuse') throw new Error(`invalid configuration: ${verdict.message}`);
  if (verdict.action === 'warn') options.warn(verdict.message!);
  return verdict;
}
