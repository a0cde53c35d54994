// Resolving a Scene's Values: a literal, or {"ref": id} naming the node whose value it takes. The scene has been
// checked (check.js), so every ref names a node of the right kind.

export const SETTING_NAMES = ['unit', 'gridOpacity', 'canvasColor', 'originX', 'originY'];

export function isRef(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A number (or a scalar's value, for a ref). */
export function num(value, byId) {
  return isRef(value) ? byId.get(value.ref).value : value;
}

/** [x, y] of a position: a pair of numbers, or a point node. */
export function pos(value, byId) {
  if (!isRef(value)) return [num(value[0], byId), num(value[1], byId)];
  const point = byId.get(value.ref);
  return [num(point.x, byId), num(point.y, byId)];
}

/** A label as text: a string, or a scalar's value shown as text. */
export function text(value, byId) {
  return isRef(value) ? String(byId.get(value.ref).value) : value;
}

/** The canvas settings with every ref resolved. */
export function settingsOf(scene, byId) {
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, num(scene.settings[name], byId)]));
}

export function nodesById(scene) {
  return new Map(scene.nodes.map((node) => [node.id, node]));
}
