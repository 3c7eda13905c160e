/** Moved to harness/bundle/layout.ts (one home for the bundle format); this re-export goes once every importer follows. */
export { BUNDLE_FILES } from './bundle/layout.ts';
