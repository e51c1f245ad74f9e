import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** How long a request that was running when the stop began may take to finish its answer. */
export const DRAIN_GRACE_MS = 2_000;

/**
 * Fastify's close waits for every open connection, and a browser keeps its connection open after
 * an answer (for up to 72 s, Fastify's keep-alive timeout). A request still running when a stop
 * began (the settings audit of a page just opened) left such a connection behind, and the stop
 * hung until close-with-grace gave up: exit 1 after 15 s. So answers sent once the stop began
 * close their connection, and connections still busy after DRAIN_GRACE_MS are cut.
 */
export const drainConnectionsPlugin = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    let cutBusy: NodeJS.Timeout | undefined;
    app.addHook('onSend', async (_request, reply) => {
      if (closing) reply.header('connection', 'close');
    });
    app.addHook('preClose', async () => {
      closing = true;
      cutBusy = setTimeout(() => app.server.closeAllConnections(), DRAIN_GRACE_MS).unref();
    });
    app.addHook('onClose', async () => clearTimeout(cutBusy));
  },
  { name: 'aioscope-drain-connections' },
);
