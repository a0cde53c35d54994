// The browser's own Scene checker (figure/check.js) for the site builder's embedded V8 (kernelviz/site/js.py):
// kvSceneProblem(scene) -> JSON of null, or of what the browser would refuse in the scene.
import { sceneProblem } from '../figure/check.js';

globalThis.kvSceneProblem = (scene) => {
  try {
    return JSON.stringify(sceneProblem(scene));
  } catch (e) {
    return JSON.stringify(`the scene could not be checked: ${e.message}`);
  }
};
