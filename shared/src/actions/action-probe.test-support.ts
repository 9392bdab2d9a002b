import { authorizationDetails, displayAction } from './registry.ts';

/**
 * The three ways the type tests look at one example action with some members overridden: parsed as
 * the server parses `authorization_details` (an array of one action), its refusals as
 * `path: message` (empty when accepted), and its display.
 */
export function actionProbe(example: Record<string, unknown>) {
  const parse = (overrides: Record<string, unknown>) => authorizationDetails.safeParse([{ ...example, ...overrides }]);
  return {
    parse,
    problems(overrides: Record<string, unknown>): string[] {
      const result = parse(overrides);
      return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    },
    shown: (overrides: Record<string, unknown>) => displayAction(authorizationDetails.parse([{ ...example, ...overrides }])[0]!),
  };
}
