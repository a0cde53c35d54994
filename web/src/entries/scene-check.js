// The Scene checker, a bundle of its own (most of the runtime's weight is the schema's validator): the runtime
// (main.js) fetches it the first time it draws a Scene other than the page's own, which was checked by the same
// checker at build time (kernelviz/site/figures.py), and with the editors.
export { sceneProblem } from '../figure/check.js';
