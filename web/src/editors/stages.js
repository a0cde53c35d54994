// Python's start and a run, told as stages with their elapsed times, so that a reader who pressed Run sees what is
// happening while Python downloads (13.6 MB) and starts (several seconds on a busy machine) instead of a bar that sits
// full. The stages, in order: 'download' (the worker fetches Pyodide and kernelviz), 'start' (every byte has come;
// Pyodide compiles and starts), 'code' (the page's Python, kernelviz and pie, is written and imported), 'run' (the
// editors run). A timeline is [{stage, at}] in the order they began (at: performance.now() ms), ended by {stage:
// 'ready', at} once Python is ready with no run waiting; python.js keeps it.

export const STAGES = [
  ['download', 'downloading'],
  ['start', 'starting Python'],
  ['code', "loading the page's code"],
  ['run', 'running'],
];
const LABEL = Object.fromEntries(STAGES);

/** `ms` as seconds, one decimal: "4.1 s". */
export const seconds = (ms) => `${(Math.max(ms, 0) / 1000).toFixed(1)} s`;

/** The stage `timeline` is in at `now` ({stage, label, elapsed: ms since it began, total: ms since the first
 * began}), or null when it is empty or ended. */
export function currentStage(timeline, now) {
  const last = timeline.at(-1);
  if (!last || !(last.stage in LABEL)) return null;
  return { stage: last.stage, label: LABEL[last.stage], elapsed: now - last.at, total: now - timeline[0].at };
}

/**
 * The stages of `timeline` at `now` as one line: each stage that has ended with its time and a tick, the current one
 * with its time so far and an ellipsis, the ones still to come by name ("downloading 4.1 s ✓ · starting Python
 * 1.2 s… · loading the page's code · running"). Stages before the timeline's first are left out (a run of a Python
 * already started shows only 'running'), and so is one passed without being seen.
 */
export function stagesLine(timeline, now) {
  if (!timeline.length) return '';
  const order = (stage) => STAGES.findIndex(([s]) => s === stage);
  const first = order(timeline[0].stage);
  const reached = Math.max(...timeline.map((t) => order(t.stage)));
  const parts = [];
  STAGES.forEach(([stage, label], k) => {
    if (k < first) return;
    const i = timeline.findIndex((t) => t.stage === stage);
    if (i < 0 && k < reached) return; // passed without being seen (e.g. no byte count to say the download ended)
    if (i < 0) parts.push(label);
    else if (i + 1 < timeline.length) parts.push(`${label} ${seconds(timeline[i + 1].at - timeline[i].at)} ✓`);
    else parts.push(`${label} ${seconds(now - timeline[i].at)}…`);
  });
  return parts.join(' · ');
}
