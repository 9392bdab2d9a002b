export { redeemVerified, redemptionOf, verifyRedemptionToken, type MandateSpender, type PresentedAction } from './redeem.ts';
export { reportOutcome, type SpendOutcomeReporter } from './report-outcome.ts';
export { redemptionRoutes } from './routes.ts';
export { checkPreconditions } from './check-preconditions.ts';
export { newRedemptionId, parseRedemptionId } from './redemption-id.ts';
