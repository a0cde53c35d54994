// Closed-form HBM byte counts for the explorer and the kernel pages' roofline (web/src/roofline/): the functions of
// kernelviz/attention/formulas.py, translated by kernelviz/attention/js_port.py into web/.gen/formulas.js when the
// web build runs (web/build.mjs), so there is one source and no hand port. Change formulas.py; the build follows.
// tests/explorer/test_explorer_formulas.py still runs this module under node against Python on over 10,000 settings.
export * from '#gen/formulas.js'; // web/.gen/formulas.js (package.json "imports")
