"""Errors that end a build with exit 1 and one clear message."""

from __future__ import annotations


class InputError(Exception):
    """Bad input: names the file (and line) so the user can look."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.detail = message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class OutputError(Exception):
    """The site cannot be written where asked."""
