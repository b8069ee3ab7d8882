"""The capacity model: measure the pipeline locally, compute what it needs at scale (``make capacity``)."""
