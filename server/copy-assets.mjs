// Copies what the built server reads as files next to its modules (the console's page, styles and
// scripts) into dist/, where tsc does not put anything that is not a module.
import { cpSync } from 'node:fs';

cpSync(new URL('./src/console/assets/', import.meta.url), new URL('./dist/console/assets/', import.meta.url), { recursive: true });
