// Closed-form FLOP counts for the roofline section: the functions of kernelviz/attention/flops.py, translated by
// kernelviz/attention/js_port.py into web/.gen/flops.js when the web build runs (web/build.mjs): one source, no hand
// port. Each returns {matmul, exp, other}; tests/roofline/test_roofline_js.py compares them with Python over a grid.
export * from '#gen/flops.js'; // web/.gen/flops.js (package.json "imports")
