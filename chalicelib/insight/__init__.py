"""The insight service: payday prediction, income detection and verification, Pave caches,
recurring expenses, savings progress and balance alerts, built on the transactions service's rows."""
