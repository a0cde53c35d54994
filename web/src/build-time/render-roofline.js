// The roofline section of a kernel page as it opens, drawn at build time by the section's own code
// (web/src/roofline/section.js) in the site builder's embedded V8 (kernelviz/site/extensions/roofline.py):
//   kvRenderRoofline({spec, state}) -> JSON of {html}: the section's content at the figure's sizes, the plot WIDTH
//   px wide. The browser's runtime (entries/roofline.js) takes it over and draws it again with the same code when
//   the sizes, the preset or the width change.
import { section } from '../roofline/section.js';

globalThis.kvRenderRoofline = ({ spec, state }) => JSON.stringify({ html: section(spec, state) });
