"""Templates precompiled by scripts/compile_templates.py (generated: do not edit)."""

# template name -> site.template_fingerprint of the source it was compiled from
FINGERPRINTS = {
    '_charts.html': '0dfc840928e55d181e7d2dd543c79a780f4207dc6b8cd12a1f79fe25b242d563',
    'base.html': 'aa53989e6020b2b6aa3de6f5606bf5e17d19560a67fdb1e8304d02b5fc297398',
    'code_diff.html': '3cdbe2b48c228de55c06808e4775a21bfbe2bb2b6077f205dfa6bd4182e75318',
    'index.html': '7cdc7793b574cc70e89052723962692989c9521b0fbb69e93e11797941719349',
    'iteration.html': '9707a07517b9e0a276529c44e8cb8717bd2f767a837882b8db665ca799088d3b',
    'runs_index.html': '90ca5969eb88f0d504f165c3cded43ecb57c0c01cdaedb6ce4ee2a548711b16f',
    'tinker_iteration.html': '5432afce960881c7ee70a260c5b158aed8b63a457a9816f7b97557289ae215d5',
}
