// The algorithm records the browser knows, generated from kernelviz/attention/topics/ (kernelviz/attention/
// js_topics.py writes web/.gen/topics.js when the web build runs): each record's family, baseline, inputs, options
// and closed forms (HBM bytes, FLOPs, shared-memory traffic, the tiles one block holds). The explorer and the
// roofline ask these questions of a record instead of switching on its name.
import { TOPICS } from '#gen/topics.js'; // web/.gen/topics.js (package.json "imports")

export { TOPICS };

/** The record of `algorithm`; an Error naming it and the known ones when there is none. */
export function record(algorithm) {
  const found = Object.hasOwn(TOPICS, algorithm) ? TOPICS[algorithm] : null;
  if (!found) throw new Error(`no algorithm ${algorithm}; expected one of ${Object.keys(TOPICS).join(', ')}`);
  return found;
}

/** Whether `algorithm` takes the option `name` (flash decoding's splits). */
export const takes = (algorithm, name) => record(algorithm).options.includes(name);

/** Whether `algorithm`'s inputs are a batch of sequences in a paged cache (its closed forms take seq_lens). */
export const takesBatch = (algorithm) => record(algorithm).inputs === 'paged';

/** Whether `algorithm` is its family's baseline, the one the others are measured against (drawn in contrast). */
export const isBaseline = (algorithm) => record(algorithm).baseline;

/** The baseline record of `family` ('forward', 'backward'), or null. */
export const baselineOf = (family) => Object.values(TOPICS).find((r) => r.baseline && r.family === family) ?? null;

/** The record the explorer walks through: the one whose block's tiles have a closed form (`block`), with the baseline
 * of its family it is measured against. {explored, baseline}. */
export function explorerPair() {
  const explored = Object.values(TOPICS).find((r) => r.block?.call);
  if (!explored) throw new Error('explorer: no algorithm record has a closed form of its block (block)');
  return { explored, baseline: baselineOf(explored.family) };
}

/** `algorithm`'s closed form `form` ('bytes', 'flops', 'shared' or 'block') at `values` ({param: value}; a param missing
 * from them takes the record's option default, else the function's own default), or null where the record counts
 * none; an Error where it counts one the browser has no JavaScript for (a closed form of the topic's own module). */
export function evaluate(algorithm, form, values) {
  const closed = record(algorithm)[form];
  if (!closed) return null;
  if (!closed.call) throw new Error(`${algorithm}: its ${form} closed form (${closed.source}) has no JavaScript`);
  const all = { ...record(algorithm).defaults, ...values };
  return closed.call(...closed.params.map((name) => all[name]));
}
