// Is a Scene drawable? The JSON Schema (the validator generated from kernelviz/pie/scene.schema.json, the same file
// pie checks against, with the bounds of what can be drawn in time), then what a schema cannot say: every ref
// names a node of the right kind holding a value in bounds, and every step names items its figure has. Returns
// null, or a message that names what is wrong.
import validate from 'kernelviz:validate-scene';
import schema from '../../../kernelviz/pie/scene.schema.json';

const NUMBER_FIELDS = { point: ['x', 'y'], text: ['x', 'y', 'size'], rectangle: ['w', 'h'] };

function schemaMessage(errors) {
  const e = (errors || [])[0];
  if (!e) return 'the scene does not match the Scene schema';
  const where = e.instancePath ? `scene${e.instancePath.replaceAll('/', '.')}` : 'the scene';
  const extra = e.params && e.params.additionalProperty ? ` (${e.params.additionalProperty})` : '';
  return `${where} ${e.message}${extra} (Scene schema)`;
}

function refChecker(byId) {
  return (value, kind, where, test) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    const node = byId.get(value.ref);
    if (!node) return `${where} refers to node "${value.ref}", which is not in the scene`;
    if (node.kind !== kind) return `${where} refers to node "${value.ref}", a ${node.kind}; it must be a ${kind}`;
    if (test && !test(node)) return `${where} refers to scalar "${value.ref}", whose value is not ${test.what}`;
    return null;
  };
}

const isNumber = Object.assign((n) => typeof n.value === 'number' && Number.isFinite(n.value), { what: 'a number' });
const isString = Object.assign((n) => typeof n.value === 'string', { what: 'a color string' });

/** A test that a referred scalar holds a number within the schema's bounds `name` ($defs), e.g. the unit. */
function within(name) {
  const { minimum, maximum } = schema.$defs[name];
  const test = (n) => isNumber(n) && n.value >= minimum && n.value <= maximum;
  return Object.assign(test, { what: `a number from ${minimum} to ${maximum}` });
}
const SETTING_TESTS = { canvasColor: isString, unit: within('unit'), gridOpacity: within('opacity') };

function nodeProblems(node, byId, ref) {
  const at = `node "${node.id}" (${node.kind})`;
  const test = (f) => (node.kind === 'text' && f === 'size' ? within('font') : isNumber);
  const problems = (NUMBER_FIELDS[node.kind] || []).map((f) => ref(node[f], 'scalar', `${at} ${f}`, test(f)));
  if (node.kind === 'text') problems.push(ref(node.label, 'scalar', `${at} label`));
  if (node.kind === 'rectangle') {
    if (Array.isArray(node.corner)) node.corner.forEach((v, i) => problems.push(ref(v, 'scalar', `${at} corner[${i}]`, isNumber)));
    else problems.push(ref(node.corner, 'point', `${at} corner`));
  }
  if (node.kind === 'step_list') {
    const figure = ref(node.figure, 'diagram', `${at} figure`);
    if (figure) return [figure];
    const items = byId.get(node.figure.ref).items.length;
    node.steps.forEach((step, k) => {
      const name = `step ${k} "${step.label}"`;
      for (const phase of ['start', 'move', 'end']) {
        for (const [index] of step[phase] || []) {
          if (index >= items) problems.push(`${name} ${phase} changes item ${index}, but figure "${node.figure.ref}" has ${items} items (0 to ${items - 1})`);
        }
      }
      for (const [index] of step.stagger || []) {
        if (index >= items) problems.push(`${name} stagger names item ${index}, but figure "${node.figure.ref}" has ${items} items`);
      }
    });
  }
  return problems;
}

/** null when `scene` can be drawn, else what is wrong with it (the first problem found). */
export function sceneProblem(scene) {
  if (!validate(scene)) return schemaMessage(validate.errors);
  const byId = new Map();
  for (const node of scene.nodes) {
    if (byId.has(node.id)) return `two nodes have the id "${node.id}"`;
    byId.set(node.id, node);
  }
  const ref = refChecker(byId);
  for (const [name, value] of Object.entries(scene.settings)) {
    const problem = ref(value, 'scalar', `setting ${name}`, SETTING_TESTS[name] || isNumber);
    if (problem) return problem;
  }
  for (const node of scene.nodes) {
    const problem = nodeProblems(node, byId, ref).find(Boolean);
    if (problem) return problem;
  }
  return null;
}
