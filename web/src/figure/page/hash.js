// The current step in the URL, #step=N, so that a link can open the figure at a step.

export function stepFromHash(hash = location.hash) {
  const m = /^#step=(\d+)$/.exec(hash);
  return m ? Number(m[1]) : null;
}

export function writeStep(k) {
  const hash = `#step=${k}`;
  if (location.hash !== hash) history.replaceState(history.state, '', hash);
}
