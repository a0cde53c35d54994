// The overview page's attention memory path explorer (front matter `scripts: [explorer]`): mounts into
// <div id="kv-explorer">. The bundler writes the CSS imported here to explorer.css beside this file, and the site
// builder links it from every page that loads this entry.
import '../explorer/explorer.css';
import { mount } from '../explorer/app.js';

function start() {
  const root = document.getElementById('kv-explorer');
  if (root) mount(root);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
