// The theme button in the nav (.kv-theme, rendered by the site builder): it says what it does ("Dark" in the light
// theme, "Light" in the dark one: site.css shows the words for the theme in force). The theme is the system's
// (prefers-color-scheme) until the reader presses the button; their choice is then data-theme on <html> ("light" or
// "dark"), remembered in localStorage under THEME_KEY and set again before the first paint by the page's inline
// script (templates/page.html). Colours follow through CSS: every colour is a custom property whose value is
// light-dark(light, dark), and data-theme sets the root's color-scheme.

export const THEME_KEY = 'kv-theme';

const systemDark = () => matchMedia('(prefers-color-scheme: dark)');

/** Whether `doc` is dark now: the reader's choice, else the system's. */
export function isDark(doc = document) {
  const chosen = doc.documentElement.dataset.theme;
  return chosen ? chosen === 'dark' : systemDark().matches;
}

/** Wire the nav's theme button in `doc`, if it has one. */
export function wireTheme(doc = document) {
  const button = doc.querySelector('.kv-theme');
  if (!button) return;
  button.addEventListener('click', () => {
    const theme = isDark(doc) ? 'light' : 'dark';
    doc.documentElement.dataset.theme = theme;
    try {
      localStorage.setItem(THEME_KEY, theme);
    } catch {
      // storage refused (private mode): the choice lasts for this page
    }
  });
}
