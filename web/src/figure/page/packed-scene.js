// The Scene a page opens with, as the file the page preloads (scenes/SLUG.json): packed by the build
// (kernelviz/site/scene_file.py, which says the format). `unpackScene` restores the Scene exactly: each diagram's
// items are its defaults overlaid with what each item has. Anything else (a plain Scene) is returned as it is.

/** The Scene of a scene file's JSON value `data`, packed or plain. */
export function unpackScene(data) {
  if (!data || typeof data !== 'object' || data.packedScene !== 1) return data;
  const { defaults, scene } = data;
  const node = (n) =>
    n && n.kind === 'diagram' && Object.hasOwn(defaults, n.id) && Array.isArray(n.items)
      ? { ...n, items: n.items.map((item) => ({ ...defaults[n.id], ...item })) }
      : n;
  return { ...scene, nodes: Array.isArray(scene?.nodes) ? scene.nodes.map(node) : scene?.nodes };
}
