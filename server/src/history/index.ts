export { listHistory } from './list-history.ts';
export { HISTORY_LIMIT, historyKey, recordHistory, type HistoryActor } from './record-history.ts';
