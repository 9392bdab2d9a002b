export * from './errors/index.ts';
export * from './jcs/index.ts';
export * from './money/index.ts';
export * from './actions/index.ts';
export * from './schemas/index.ts';
