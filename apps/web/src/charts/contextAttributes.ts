/** The one method of a canvas prototype this module stands in for. */
interface GetsContext {
  getContext: (contextId: string, options?: unknown) => unknown;
}

/**
 * Runs `make` with every 2D context asked for in it created with `attributes` (the caller's own
 * options win). uPlot makes its canvas and asks for the context inside its constructor, with no
 * option for context attributes; the attributes are fixed by the first getContext call, so they
 * must be given there. The prototype is restored before this returns, also when `make` throws:
 * nothing else runs in between (uPlot's constructor is synchronous).
 */
export function withContextAttributes<T>(
  attributes: CanvasRenderingContext2DSettings,
  make: () => T,
  prototype: GetsContext = HTMLCanvasElement.prototype as unknown as GetsContext,
): T {
  const own = Object.prototype.hasOwnProperty.call(prototype, 'getContext');
  const original = prototype.getContext;
  prototype.getContext = function (this: unknown, contextId: string, options?: unknown) {
    const merged = contextId === '2d' ? { ...attributes, ...(options as object | undefined) } : options;
    return original.call(this, contextId, merged);
  };
  try {
    return make();
  } finally {
    if (own) prototype.getContext = original;
    else delete (prototype as Partial<GetsContext>).getContext;
  }
}
