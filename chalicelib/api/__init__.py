"""The HTTP API: request parsing, authorization, responses, error mapping."""
