"""reportgen: turn the logs of an RL run of a language model into a static website."""

__version__ = "0.1.0"
