// Entry: the numeric panel of the Online softmax page (front matter `scripts: [softmax-panel]`). Mounts a panel
// on every .kv-softmax-panel element; the computing modules are exported for the tests.
import '../softmax/panel.css';
import { mount } from '../softmax/panel.js';

export { compute } from '../softmax/compute.js';
export { uniforms, row } from '../softmax/data.js';
export { F16_MAX, toFloat16 } from '../softmax/float16.js';

for (const root of document.querySelectorAll('.kv-softmax-panel')) mount(root);
