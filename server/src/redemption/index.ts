export { redeemVerified, redemptionOf, verifyRedemptionToken, type PresentedAction } from './redeem.ts';
export { reportOutcome } from './report-outcome.ts';
export { redemptionRoutes } from './routes.ts';
export { checkPreconditions } from './check-preconditions.ts';
export { newRedemptionId, parseRedemptionId } from './redemption-id.ts';
