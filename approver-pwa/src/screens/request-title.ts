import type { RequestDisplay } from '@countersign/shared';

/** A request's headline: its action's title, or the first one's and how many more. */
export function requestTitle(request: Pick<RequestDisplay, 'actions'>): string {
  const [first, ...rest] = request.actions;
  if (!first) return 'Approval request';
  return rest.length === 0 ? first.title : `${first.title} and ${rest.length} more`;
}
