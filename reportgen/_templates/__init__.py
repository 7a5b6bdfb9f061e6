"""Templates precompiled by scripts/compile_templates.py (generated: do not edit)."""

# template name -> site.template_fingerprint of the source it was compiled from
FINGERPRINTS = {
    '_charts.html': '8a328f0ab8ecfc0db958fe30bd8afd4dfb83337867af1d019c2b0420379c9f7f',
    '_next.html': '666f8e895d0eae3eedcdbb2292209815f84cf67d3e59189b548ff709f5316cdb',
    'base.html': '4457d06fb22ce484b1be71e7cc430248ed3c777212f61f55bafe5df4e79d02e9',
    'code_diff.html': 'd4138c4340ef3f90415d8a2cf4ce3c1b8b3f5e73023d00efbb6f882cd9891c5e',
    'index.html': 'e0c11d11ea53055aac2b8a4e7c1e8d1c304b76c22a0e48a93042414f17a94c93',
    'iteration.html': 'ce0653b55adadbbbe0c051d2184f311109a72b8723c980929cdfb978741749cb',
    'logs.html': 'fa7851be847babb82e766922088341698451ba52535d2ed342896d26532d1232',
    'runs_index.html': '6e56a314e5021fe1e9ebb7ef11051d05777e5de56483beb72137afda32194193',
    'search.html': '4e475b60436f011c49b6ccda74c7fb0d780f7c64e668491050bcf78025e94f44',
    'tinker_iteration.html': '3f70aaf8de008b24a7933a3ab2d405b7858631695eebe967505320e96c049664',
}
