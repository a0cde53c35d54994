// The site's colors, one role each (the same hues as the kernel pages' figures and equations).

export const TILE = {
  Q: { fill: '#99f6e4', stroke: '#115e59' },
  K: { fill: '#fecaca', stroke: '#b91c1c' },
  V: { fill: '#f4f4f5', stroke: '#3f3f46' },
  S: { fill: '#ddd6fe', stroke: '#7c3aed' },
  O: { fill: '#fde68a', stroke: '#b45309' },
  m: { fill: '#bfdbfe', stroke: '#1d4ed8' },
  l: { fill: '#a7f3d0', stroke: '#047857' },
};

export const HBM = { fill: '#fafafa', stroke: '#e4e4e7', text: '#a1a1aa' }; // cells left in HBM: dim
export const INK = '#27272a';
export const MUTED = '#71717a';
export const OVER = '#dc2626'; // a tile past the SRAM budget

/** The palette entry of an SRAM tile name: Qi -> Q, Sij -> S, mi -> m. */
export function tileColor(name) {
  return TILE[name[0]];
}
