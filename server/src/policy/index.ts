export { blastRadiusAsks, requestReach, reversibilityOf, type BlastRadiusAsk, type RequestReach } from './blast-radius-tiers.ts';
export { decideTier, requestAmounts, type TierDecision } from './decide-tier.ts';
export { pendingRequestIds, releasePending, releaseUnused, reserveRequest, takePushSlot, velocityMemberOf, type LimitDeps, type LimitHolder, type Reservation, type ReservationInput } from './limits.ts';
export { DEFAULT_POLICY_FILE, loadPolicy, parsePolicy } from './load-policy.ts';
export { REACH_NAMES } from './velocity-reach.ts';
export { drawBindingCodes, type BindingCodes } from './number-matching.ts';
export { approverCoverage, awaitingParties, canView, wasHolder, partiesOf, partyFor, roleOf, type ApproverCoverage, type PartiesOfRequest, type PartyApproval, type Viewer } from './parties.ts';
export { BLAST_RADIUS, defaultClientShare, policySchema, REVERSIBILITY, storedPolicySchema, type Policy, type Tier } from './policy-schema.ts';
export { checkEscalation, escalationChain, unreachableEscalation, type EscalatingTier } from './escalation-schema.ts';
