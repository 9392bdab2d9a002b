export { redeemVerified, redemptionOf, verifyRedemptionToken } from './redeem.ts';
export { reportOutcome } from './report-outcome.ts';
export { redemptionRoutes } from './routes.ts';
