export { AdminApiError, createAdminApi, type AdminApi, type AdminApiOptions } from './admin-api.ts';
export { runCli, USAGE, type CliEnvironment } from './run-cli.ts';
