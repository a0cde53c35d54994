// The CUDA blocks' code (page/cuda-code.js) and the C arithmetic of their values (page/c-expr.js) for the site
// builder's embedded V8 (kernelviz/site/cuda_render.py), the same code the browser runs:
//   kvCudaBlocks({blocks, file, sizes, as: 'text' | 'html'}) -> JSON of [each block's lines, as text or HTML]
//                                                 (a block with "runs": false is a step that does not run)
//   kvEvaluate({expr, values}) -> JSON of the integer value, or null
import { blockHtml, blockText } from '../page/cuda-code.js';
import { evaluate } from '../page/c-expr.js';

globalThis.kvCudaBlocks = ({ blocks, file, sizes, as }) =>
  JSON.stringify(blocks.map((block) => (as === 'html' ? blockHtml : blockText)(block, file, sizes, block.runs ?? true)));
globalThis.kvEvaluate = ({ expr, values }) => JSON.stringify(evaluate(expr, values));
