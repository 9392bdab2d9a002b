export { createRefundOrderTool, type RefundOrderTool, type RefundOrderToolOptions } from './refund-order-tool.ts';
export { refundOrderDefinition, type ToolDefinition } from './refund-order-definition.ts';
export { createFakePaymentLedger, type FakePaymentLedger, type RefundRecord } from './fake-payment-ledger.ts';
export { createFakeOrderBook } from './fake-order-book.ts';
export type {
  Customer,
  OrderLookup,
  PaymentSystem,
  RefundApproval,
  RefundOrderArgs,
  RefundOrderResult,
  RefundPreview,
} from './types.ts';
