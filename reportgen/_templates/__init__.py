"""Templates precompiled by scripts/compile_templates.py (generated: do not edit)."""

# template name -> site.template_fingerprint of the source it was compiled from
FINGERPRINTS = {
    '_charts.html': 'cc2022af5e46dde6da813229c9d74875465fe4297def8733df60d55ecbd8f6bf',
    'base.html': '464bfe42598c194e2f695840d18ca1eb09125e66f1703f3e3036c03728cceea9',
    'code_diff.html': 'd4138c4340ef3f90415d8a2cf4ce3c1b8b3f5e73023d00efbb6f882cd9891c5e',
    'index.html': '875cee2ab6604f1f5aa4f83714071d76bb062e3c8a739090f1c8824c6180af8f',
    'iteration.html': 'bd168b274330d54cda8b8929ac0eaaf5d2f2aa01c6a7395158140437d0db1d39',
    'runs_index.html': 'caac90fab87cb3ae1ba7a60738ee87339f98d0701464d887e69a2f599a301d5b',
    'tinker_iteration.html': '3f70aaf8de008b24a7933a3ab2d405b7858631695eebe967505320e96c049664',
}
