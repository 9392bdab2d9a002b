export { adminRoutes } from './routes.ts';
export { adminAuth, type AdminAuthDeps } from './admin-auth.ts';
