export type { ActionDisplay, DisplayField, DisplayMember, DisplayValue } from './display.ts';
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
export { MAX_TOOL_ARGUMENTS_BYTES, MAX_TOOL_ARGUMENTS_DEPTH, toolArguments, utf8Length, type JsonObject, type JsonValue } from './tool-arguments.ts';
export { displayJsonValue, displayToolCall, PREVIEW_CODE_POINTS, PREVIEW_LINES } from './tool-call-display.ts';
export { toolAnnotations, toolCallDetails, toolName, type ToolAnnotations, type ToolCallDetails } from './tool-call.ts';
