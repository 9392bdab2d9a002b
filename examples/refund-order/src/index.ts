export { defineRefundOrder, refundOrderParameters, type DefineRefundOrderOptions, type RefundOrderGatedTool, type RefundOrderParameters } from './define-refund-order.ts';
export { createRefundOrderTool, type RefundOrderTool, type RefundOrderToolOptions } from './refund-order-tool.ts';
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
