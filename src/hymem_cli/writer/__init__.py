"""The memory writer: prompt, operation schema, guards and model backends."""
