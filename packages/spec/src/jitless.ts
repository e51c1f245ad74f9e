import { z } from 'zod';

/**
 * Imported first by a page whose CSP has no 'unsafe-eval' (the dashboard's). zod cannot compile
 * its parsers there anyway; told so, it interprets them from the start instead of probing with
 * `new Function`, which the browser reports as a CSP violation. It must run before any schema is
 * built, hence a module of its own, imported ahead of everything that imports the spec.
 */
z.config({ jitless: true });
