"""ptorewrite: rewrite AUTO-mode PTO kernels into manual-mode kernels, and check them."""

__version__ = "0.1.0"
