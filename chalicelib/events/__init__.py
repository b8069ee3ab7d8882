"""The service's domain events, published to its own EventBridge bus."""
