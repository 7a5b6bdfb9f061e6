"""Templates precompiled by scripts/compile_templates.py (generated: do not edit)."""

# template name -> site.template_fingerprint of the source it was compiled from
FINGERPRINTS = {
    '_charts.html': '7db375a12a2b514eca42c57b1a3981cb2023fb3e08e012e27a78c4b8fd0d349c',
    '_next.html': '666f8e895d0eae3eedcdbb2292209815f84cf67d3e59189b548ff709f5316cdb',
    'base.html': '54d6647c5c6019d85436244702a9fc6be4aa19451935be8d7e10300809155d5a',
    'code_diff.html': 'd4138c4340ef3f90415d8a2cf4ce3c1b8b3f5e73023d00efbb6f882cd9891c5e',
    'index.html': '7a8fc86dbe8da580471a7f8f9bf3aa509204936e834bf4492de8f19c34a31dc8',
    'iteration.html': 'b376f49afd1f6525d71b7e4b1260f1306629dd74bae709bb3bda96109950e313',
    'logs.html': 'fa7851be847babb82e766922088341698451ba52535d2ed342896d26532d1232',
    'runs_index.html': '65eddc86201205f2376ede9eabcb6f43c6a865751d8e35b06055c1ecefe4107f',
    'search.html': '294cbf13f62ba76717feea62411fd2b5d366a88d15ba0c5e3943b26b1ed1be66',
    'tinker_iteration.html': '1fa67494ccda501f8260f8149cd02d2f3806062b355263c658de373e4f313113',
}
