// Where tests find the project and the shared third-party data beside its checkout.
import { join } from 'node:path';
import { projectRoot } from '../../src/main/common/paths.js';

export const ROOT = projectRoot();
/** ../shared, as in CI: the fixtures and seed documents live beside the checkout, never inside it. */
export const SHARED = join(ROOT, '..', 'shared');
export const SEEDS = join(SHARED, 'seeds');
export const FIXTURES = join(SHARED, 'fixtures');
