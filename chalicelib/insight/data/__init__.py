"""The insight service's data layer: one module per entity, every key built in :mod:`.keys`."""
