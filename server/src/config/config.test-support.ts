// What the config-*.test.ts files share: the smallest production environment. Test code only.

/** The smallest production environment that starts. */
export const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://approve.acme-payments.com',
  ADMIN_TOKEN: 'a'.repeat(32),
  VAPID_SUBJECT: 'mailto:ops@acme-payments.com',
};
