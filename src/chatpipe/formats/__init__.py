"""Dialects: one module per chat-log format (its reader and, where it can, its writer),
each declaring what it can do on its ``Dialect`` class; ``registry`` loads them by name,
``detect`` tells them apart."""
