import type { z } from 'zod';

/** A spec schema whose parse yields T: what a receiver checks a payload with, without importing zod. */
export type Schema<T> = z.ZodType<T>;

/** What a failed parse reports: every issue with its path in the payload. */
export type SchemaError = z.ZodError;
