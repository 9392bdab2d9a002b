// The load generator and the peer ship no TypeScript types; the benchmark uses few of their calls.
declare module 'autocannon' {
  const autocannon: (
    options: Record<string, unknown>,
    done: (error: Error | null, result: unknown) => void,
  ) => {
    stop(): void;
    on(event: string, listener: (...args: any[]) => void): void;
  };
  export default autocannon;
}
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  const MemoryAdapter: new (model: string, storage: unknown) => unknown;
  export default MemoryAdapter;
}
declare module 'oidc-provider/lib/helpers/lru.js' {
  const LRU: new (options: { maxSize: number }) => unknown;
  export default LRU;
}
