/**
 * The sampling cost budget (`--rate auto`): the highest fast-tick rate whose measured cost stays
 * under a share of one core. What can be measured honestly from the client is the round trip of
 * each fast tick (frame.sampleMs): server parse, execution and result, plus the network and the
 * client's own wait. It is an upper bound of the database-side time (pg_stat_statements would be
 * closer but is not installed everywhere), so the budget errs on the cheap side, and a busy
 * server, whose round trips grow, is sampled less.
 */

export const AUTO_RATE_MIN_HZ = 1;
export const AUTO_RATE_MAX_HZ = 100;
/** Default budget: 1 % of one core per target. */
export const DEFAULT_RATE_BUDGET_SHARE = 0.01;
/** Where an auto rate starts before anything is measured (the fixed default). */
export const AUTO_RATE_START_HZ = 20;
/** A rise is at most this factor per decision: one quiet moment must not jump to 100 Hz. */
export const AUTO_RATE_MAX_RISE = 1.5;
/** A rise smaller than this share is not worth moving the tick grid for. */
export const AUTO_RATE_MIN_RISE = 0.1;
/** Fewer samples than this say too little about the round trip to act on. */
export const AUTO_RATE_MIN_SAMPLES = 10;

/** Round trips measured over a window of wall time. */
export interface SamplingCost {
  samples: number;
  roundTripMsSum: number;
  windowMs: number;
}

/** Time spent in sampling round trips over wall time: a share of one core, or null when unmeasured. */
export function costShare(cost: SamplingCost): number | null {
  return cost.windowMs > 0 && cost.samples > 0 ? cost.roundTripMsSum / cost.windowMs : null;
}

/** The highest whole rate in [1, 100] Hz whose mean round trip fits the budget. */
export function affordableRate(meanRoundTripMs: number, budgetShare: number): number {
  if (!(meanRoundTripMs > 0)) return AUTO_RATE_MAX_HZ;
  const hz = Math.floor((budgetShare * 1000) / meanRoundTripMs);
  return Math.min(AUTO_RATE_MAX_HZ, Math.max(AUTO_RATE_MIN_HZ, hz));
}

/**
 * The rate to sample at next. Down at once to what the budget affords (the server is busy or the
 * budget is exceeded); up by at most AUTO_RATE_MAX_RISE per decision and only for a rise of more
 * than AUTO_RATE_MIN_RISE, so the rate settles instead of hunting.
 */
export function chooseRate(currentHz: number, cost: SamplingCost, budgetShare: number): number {
  if (cost.samples < AUTO_RATE_MIN_SAMPLES) return currentHz;
  const affordable = affordableRate(cost.roundTripMsSum / cost.samples, budgetShare);
  if (affordable < currentHz) return affordable;
  if (affordable <= currentHz * (1 + AUTO_RATE_MIN_RISE)) return currentHz;
  return Math.min(affordable, Math.floor(currentHz * AUTO_RATE_MAX_RISE));
}
