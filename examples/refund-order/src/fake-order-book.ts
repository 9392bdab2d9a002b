import type { Customer, OrderLookup } from './types.ts';

/**
 * An in-memory order system for examples and tests: order ids mapped to the customer who paid.
 *
 * @example
 * ```ts
 * const orders = createFakeOrderBook({ '1042': { id: 'acct_77', name: 'ACME Ltd' } });
 * ```
 */
export function createFakeOrderBook(customers: Record<string, Customer>): OrderLookup {
  return {
    async findOrder(order_id) {
      const customer = Object.hasOwn(customers, order_id) ? customers[order_id] : undefined;
      return customer ? { order_id, customer } : undefined;
    },
  };
}
