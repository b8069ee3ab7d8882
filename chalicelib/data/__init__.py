"""The data layer: one module per entity, keys in :mod:`keys`, batches in :mod:`batch`."""
