"""Local stand-ins for third-party services, as real HTTP servers (never mocks of our own code)."""
