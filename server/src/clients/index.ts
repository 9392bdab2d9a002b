export { authenticateClient } from './authenticate-client.ts';
export { hashSecret, secretMatches, type ClientRecord } from './client-record.ts';
export { createClient, findClient, type NewClient } from './create-client.ts';
