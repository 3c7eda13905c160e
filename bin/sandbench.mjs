#!/usr/bin/env node
// Entry point: runs the TypeScript CLI through tsx so there is no build step to forget.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../cli/main.ts');
await main(process.argv);
