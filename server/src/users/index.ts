export { ensureUser, findUser, type UserRecord } from './users.ts';
