export { redeemPresented, redemptionOf, type MandateSpender } from './redeem.ts';
export { hashAsPresented, type PresentedAction } from './presented-action.ts';
export { invalidToken, proveToken, readPresentedToken, type PresentedToken } from './presented-token.ts';
export { reportOutcome, type SpendOutcomeReporter } from './report-outcome.ts';
export { redemptionRoutes } from './routes.ts';
export { checkPreconditions } from './check-preconditions.ts';
export { newRedemptionId, parseRedemptionId } from './redemption-id.ts';
