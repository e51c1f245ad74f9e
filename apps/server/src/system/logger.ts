/**
 * What the server's modules need of a logger: Fastify's `app.log` and the CLI's console both fit.
 * One leaf module, so a folder can log without importing the folder that happens to make targets.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}
