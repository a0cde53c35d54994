"""kernelviz: an executable, interactive textbook of attention GPU kernels."""

__version__ = "0.1.0"
