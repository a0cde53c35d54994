// The overview page's attention memory path explorer: mounts into <div id="kv-explorer"> and brings its own
// stylesheet (the bundler writes the CSS imported here to explorer.css beside this file).
import '../explorer/explorer.css';
import { mount } from '../explorer/app.js';

function addStylesheet() {
  const href = new URL('./explorer.css', import.meta.url).href;
  if ([...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => l.href === href)) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
}

function start() {
  const root = document.getElementById('kv-explorer');
  if (!root) return;
  addStylesheet();
  mount(root);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
