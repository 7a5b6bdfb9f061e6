"""``python -m reportgen``."""

from .cli import main

main()
