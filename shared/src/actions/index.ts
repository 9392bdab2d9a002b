export type { ActionDisplay, DisplayField } from './display.ts';
export { displayPayment, paymentDetails, type PaymentDetails } from './payment.ts';
export { displayPrecondition, precondition, recordName, recordVersion, type Precondition } from './precondition.ts';
export {
  ACTION_TYPES,
  ACTION_TYPE_NAMES,
  authorizationDetail,
  authorizationDetails,
  displayAction,
  type ActionType,
  type AuthorizationDetail,
  type AuthorizationDetails,
} from './registry.ts';
