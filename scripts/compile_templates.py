"""Precompile the Jinja templates into ``reportgen/_templates`` (run after editing a template).

A build loads a precompiled template only when its fingerprint (source, Jinja version,
settings) matches the one recorded here, and compiles it from source otherwise, so a
stale folder costs time, never correctness; ``tests/test_templates.py`` fails until this
script has been run again.

    python scripts/compile_templates.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reportgen.site import make_env, template_fingerprint  # noqa: E402

OUT = ROOT / "reportgen" / "_templates"


def main() -> None:
    env = make_env(precompiled=False)
    names = [n for n in env.list_templates() if n.endswith(".html")]
    shutil.rmtree(OUT, ignore_errors=True)
    env.compile_templates(str(OUT), zip=None, filter_func=lambda n: n in names, ignore_errors=False)
    assert env.loader is not None
    prints = {n: template_fingerprint(env, n, env.loader.get_source(env, n)[0]) for n in names}
    lines = [
        '"""Templates precompiled by scripts/compile_templates.py (generated: do not edit)."""',
        "",
        "# template name -> site.template_fingerprint of the source it was compiled from",
        "FINGERPRINTS = {",
        *[f"    {n!r}: {fp!r}," for n, fp in sorted(prints.items())],
        "}",
        "",
    ]
    (OUT / "__init__.py").write_text("\n".join(lines))
    print(f"compiled {len(names)} templates into {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
