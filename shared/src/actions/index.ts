export { accessChangeDetails, accessChangeKind, accessRole, displayAccessChange, type AccessChangeDetails } from './access-change.ts';
export { deletionDetails, displayDeletion, MAX_NAMED_IDS, MAX_RECORD_COUNT, type DeletionDetails } from './deletion.ts';
export type { ActionDisplay, DisplayAccess, DisplayChange, DisplayField, DisplayMember, DisplayMessage, DisplayRecords, DisplayValue } from './display.ts';
export { displayMandate, mandateDetails, mandateExposure, mandateInstant, mandateLimit, MAX_MANDATE_PAYEES, MAX_MANDATE_SPENDS, type DisplayMandate, type DisplayMandateLimit, type MandateDetails } from './mandate.ts';
export { MANDATE_PERIODS, periodAt, periodsTouched, type MandatePeriod } from './mandate-period.ts';
export { displayMessage, MAX_RECIPIENTS, MAX_SAMPLE_RECIPIENTS, MESSAGE_CHANNELS, messageDetails, type MessageChannel, type MessageDetails } from './message.ts';
export { displayRecordChange, fieldName, fieldValue, MAX_CHANGED_FIELDS, recordChangeDetails, type RecordChangeDetails } from './record-change.ts';
export { counted, countText, firstFew, NAMED_IDS_SHOWN } from './words.ts';
export { displayPayment, paymentDetails, type PaymentDetails } from './payment.ts';
export { displayPrecondition, precondition, recordName, recordVersion, type Precondition } from './precondition.ts';
export {
  ACTION_TYPES,
  ACTION_TYPE_NAMES,
  authorizationDetail,
  authorizationDetails,
  displayAction,
  requestSummary,
  totalsPerCurrency,
  type ActionType,
  type AuthorizationDetail,
  type AuthorizationDetails,
} from './registry.ts';
export { MAX_TOOL_ARGUMENTS_BYTES, MAX_TOOL_ARGUMENTS_DEPTH, toolArguments, utf8Length, type JsonObject, type JsonValue } from './tool-arguments.ts';
export { displayJsonValue, displayToolCall, PREVIEW_CODE_POINTS, PREVIEW_LINES } from './tool-call-display.ts';
export { toolAnnotations, toolCallDetails, toolName, type ToolAnnotations, type ToolCallDetails } from './tool-call.ts';
