export { blockClient, clearClientBlock, findClientBlock, listClientBlocks, type ClientBlock } from './client-blocks.ts';
export { ensureUser, findUser, setRoles, usersWithRole, type UserRecord } from './users.ts';
